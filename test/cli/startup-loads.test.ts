import { execa } from "execa";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Start-up loads only what the command uses (docs/cli.md, "How the CLI is built"): the real
 * binary, its bundle and code cache, with a preload that records every Node built-in and
 * native addon required. A regression here is a slower start for every run of the command.
 */
const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");
const RECORDER = resolve(import.meta.dirname, "fixtures/record-loads.cjs");

let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ddsctl-loads-"));
  env = { DDS_DB: join(dir, "dds.db"), XDG_CONFIG_HOME: join(dir, "config"), NO_COLOR: "1" };
  const made = await execa("node", [BIN, "contexts", "create", "--name", "case-1", "--quiet"], { env, reject: false });
  expect(made.exitCode, made.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function loads(args: string[]): Promise<string[]> {
  const file = join(dir, `loads-${args.join("-")}.json`);
  const r = await execa("node", ["-r", RECORDER, BIN, ...args], { env: { ...env, DDS_TEST_LOADS: file }, reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(readFileSync(file, "utf8")) as string[];
}

describe("what a command loads at start-up", () => {
  it("--help opens no database and loads no crypto, child_process or HTTP", async () => {
    const loaded = await loads(["--help"]);
    expect(loaded).not.toContain("better_sqlite3.node");
    for (const heavy of ["crypto", "child_process", "http", "https", "net", "tls"]) expect(loaded, heavy).not.toContain(heavy);
  });

  it("an in-process read opens SQLite but loads no crypto, child_process or HTTP", async () => {
    const loaded = await loads(["contexts", "list", "--json"]);
    expect(loaded).toContain("better_sqlite3.node");
    for (const heavy of ["crypto", "child_process", "http", "https", "tls"]) expect(loaded, heavy).not.toContain(heavy);
  });

  it("a write loads what it needs (the recorder sees loads: the check is not vacuous)", async () => {
    const loaded = await loads(["contexts", "create", "--name", "case-2", "--quiet"]);
    expect(loaded).toContain("crypto");
  });
});
