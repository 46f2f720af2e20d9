/**
 * `serve` on a database without an API token says so at start-up, with the command that
 * makes one, instead of answering 401 to everything in silence; on PostgreSQL without
 * DDS_SECRET_KEY it says how to make a key.
 */
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAKE_SECRET_KEY, startupHints } from "../../src/cli/commands/serve/startup-hints.js";
import { BIN, ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box?.cleanup());

/** Starts `serve --port 0 --quiet`, returns what it printed up to its address, and stops it. */
async function startupLines(): Promise<string> {
  const proc = execa("node", [BIN, "serve", "--port", "0", "--quiet"], { cwd: box.dir, env: box.env, reject: false });
  let stderr = "";
  try {
    await new Promise<void>((resolve, reject) => {
      proc.stderr!.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (/listening on /.test(stderr)) resolve();
      });
      proc.then((r) => reject(new Error(`serve exited ${r.exitCode}: ${stderr}`)), reject);
    });
  } finally {
    proc.kill("SIGTERM");
    await proc;
  }
  return stderr.slice(0, stderr.indexOf("listening on "));
}

describe("serve's start-up hints", () => {
  it("without a token: a warning (even under --quiet) with the command that makes one, and the command works", async () => {
    const before = await startupLines();
    expect(before).toMatch(/warning: this database has no API token yet: every request under \/v1 will be answered 401/);
    const command = /Make one \(printed once\) with: ddsctl (.*)$/m.exec(before)?.[1];
    expect(command).toBe(`--local ${box.db} tokens create --scope admin --name admin`);
    const made = await ddsctl(box, [...command!.split(" "), "--json"]);
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.json().token).toMatch(/^dds_/);
    expect(await startupLines()).not.toMatch(/warning/);
  });

  it("on PostgreSQL without DDS_SECRET_KEY: how to make one; with it, nothing", async () => {
    const pg = "postgres://dds:secret@db.internal/dds";
    const hints = startupHints(pg, 1, {});
    expect(hints).toHaveLength(1);
    expect(hints[0]).toContain("DDS_SECRET_KEY is not set");
    expect(hints[0]).toContain(MAKE_SECRET_KEY);
    expect(hints[0]).not.toContain("secret@");
    expect(startupHints(pg, 1, { DDS_SECRET_KEY: "k" })).toEqual([]);
    expect(startupHints(pg, 0, { DDS_SECRET_KEY: "k" })[0]).toContain("ddsctl --database <the URL this serve runs on> tokens create");
    // The command it prints makes a key the server takes: 32 bytes in base64.
    const key = (await execa("bash", ["-c", MAKE_SECRET_KEY])).stdout.trim();
    expect(Buffer.from(key, "base64")).toHaveLength(32);
  });
});
