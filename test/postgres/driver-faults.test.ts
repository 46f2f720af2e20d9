import { execa } from "execa";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";

/**
 * The `postgres` driver as installed (with patches/postgres+*.patch applied by npm's
 * postinstall): a connection whose backend dies never takes the process down, and every
 * statement sent on it afterwards settles. Unpatched, 3.4.9 throws `TypeError: Cannot read
 * properties of null (reading 'write')` from a setImmediate (no try/catch can catch it) or
 * leaves the statement pending forever; a multi-host URL whose hosts all refuse spins.
 * Both module flavours are run: the CLI bundle requires the CommonJS copy, `serve` imports
 * the ES module one.
 */
const SCRIPT = resolve(import.meta.dirname, "driver-scenarios.mjs");
let cluster: PgCluster;
let url: string;
beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
});
afterAll(async () => {
  await cluster?.stop();
});

async function scenario(flavour: "esm" | "cjs", name: string, target = url): Promise<Record<string, string>> {
  const r = await execa("node", [SCRIPT, flavour, target, name], { reject: false, timeout: 60_000 });
  // A crash of the driver shows here, with its stack.
  expect(r.exitCode, `${name} (${flavour}) exited ${r.exitCode}:\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as Record<string, string>;
}

const closed = expect.stringMatching(/^rejected:(CONNECTION_CLOSED|CONNECTION_DESTROYED|ECONNRESET|EPIPE|57P01)$/);

describe.each(["esm", "cjs"] as const)("the postgres driver (%s) when a backend dies", (flavour) => {
  it("a reserved connection: every later statement is refused, releasing it is harmless, the pool goes on", async () => {
    expect(await scenario(flavour, "reserved")).toEqual({ first: closed, second: closed, third: closed, release: "ok", pool: "ok", reserveAgain: "ok" });
  });

  it("a transaction: the statements after the loss are refused, the transaction fails, the pool goes on", async () => {
    expect(await scenario(flavour, "transaction")).toEqual({ begin: closed, pool: "ok", poolAgain: "ok" });
  });

  it("statements still queued on the connection all settle", async () => {
    const steps = await scenario(flavour, "pipelined");
    expect(steps).toEqual({ queued: "settled", after: closed, pool: "ok" });
  });
});

describe("the postgres driver when a pool is ended at once", () => {
  it("leaves no unhandled rejection behind, whatever its connections were doing", async () => {
    expect(await scenario("esm", "ended-while-connecting")).toEqual({ unhandled: "0", pool: "ok" });
  });
});

describe("the postgres driver with several hosts", () => {
  it("fails a query once every host has refused, without spinning", async () => {
    const [a, b] = [await freePort(), await freePort()];
    const steps = await scenario("esm", "hosts-down", `postgres://dds@127.0.0.1:${a},127.0.0.1:${b}/none`);
    expect(steps).toEqual({ query: "rejected:ECONNREFUSED", busyCpu: "quiet" });
  });
});

describe("the installed driver", () => {
  it("is the version the patch was made for (a new release needs the patch redone or dropped)", () => {
    const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../node_modules/postgres/package.json"), "utf8")) as { version: string };
    const patch = readFileSync(resolve(import.meta.dirname, "../../patches", `postgres+${pkg.version}.patch`), "utf8");
    expect(patch).toContain("nextWrite");
  });
});
