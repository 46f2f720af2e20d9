import { execa } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/cli.js";
import { makeNextRelease } from "../helpers/next-release.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { spawnServe, type ServeProcess } from "../helpers/serve-process.js";

/**
 * What docs/operations.md "Rolling upgrades" says the nodes of two releases do with each
 * other's schema, on PostgreSQL: this checkout is the old release, and the next one is this
 * build with one more migration (test/helpers/next-release.ts). The page runs the procedure
 * itself (test/postgres/deployment-doc.test.ts); this checks what it says of nodes that are
 * running or started at the wrong moment.
 */
let cluster: PgCluster;
let url: string;
let dir: string;
let next: string;
const nodes: ServeProcess[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  dir = mkdtempSync(join(tmpdir(), "ddsctl-upgrade-"));
  next = makeNextRelease(dir).bin;
}, 60_000);
afterAll(async () => {
  for (const node of nodes) node.proc.kill("SIGKILL");
  await Promise.allSettled(nodes.map((n) => n.proc));
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ NO_COLOR: "1", DDS_DATABASE_URL: url, DDS_SECRET_KEY: "ZHNzLXJvbGxpbmctdXBncmFkZS10ZXN0LWtleS0zMmI=", HOME: dir });
const old = (...args: string[]) => execa("node", [BIN, ...args], { env: env(), reject: false });
const nextRelease = (...args: string[]) => execa(next, args, { env: env(), reject: false });

/** `serve --no-migrate` of `command` on a free port, stopped after the test; its origin. */
async function serve(command: string[]): Promise<{ origin: string }> {
  const node = await spawnServe({ dir, env: env() }, ["--no-migrate", "--quiet"], {}, command);
  nodes.push(node);
  return { origin: node.url.replace(/\/v1$/, "") };
}

describe("an upgrade across releases, on PostgreSQL", () => {
  it("the new release's --no-migrate node refuses the old schema; a node of the old release runs on after migrate, and a restarted one stops at once with exit 8", async () => {
    expect((await old("migrate")).exitCode).toBe(0);
    const token = JSON.parse((await old("tokens", "create", "--scope", "admin", "--json")).stdout).token as string;
    const { origin } = await serve(["node", BIN]);
    const write = (name: string) =>
      fetch(`${origin}/v1/contexts`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ name }) });
    expect((await write("before")).status).toBe(201);

    // The new release: pending migrations (exit 1), and a --no-migrate node that will not start on them.
    const check = await nextRelease("migrate", "--check");
    expect([check.exitCode, check.stdout]).toEqual([1, expect.stringMatching(/1 migration\(s\) pending$/)]);
    const refused = await execa(next, ["serve", "--port", "0", "--no-migrate"], { env: env(), reject: false });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/older than this ddsctl's \d+; run ddsctl migrate first/);

    // migrate while the old node runs: it never reads the version again, and goes on writing.
    expect((await nextRelease("migrate")).exitCode).toBe(0);
    expect((await fetch(`${origin}/readyz`)).status).toBe(200);
    expect((await write("after")).status).toBe(201);

    // A node of the old release started now, and any command of it, stops at once: exit 8, one line.
    const restarted = await old("serve", "--port", "0", "--no-migrate");
    expect(restarted.exitCode).toBe(8);
    expect(restarted.stderr.trim().split("\n").at(-1)).toMatch(/^error: database postgres:\/\/\S+ has schema version (\d+), newer than this ddsctl supports \((\d+)\); upgrade ddsctl$/);
    expect((await old("migrate", "--check")).exitCode).toBe(8);
    expect((await old("contexts", "list")).exitCode).toBe(8);

    // The new release serves what both wrote.
    const { origin: upgraded } = await serve([next]);
    const names = await fetch(`${upgraded}/v1/contexts?sort=name`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json() as Promise<{ data: { name: string }[] }>);
    expect(names.data.map((c) => c.name)).toEqual(["after", "before"]);
  }, 120_000);
});
