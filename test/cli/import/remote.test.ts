import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { contribution, readRejects, setupModels, snapshot, writeLines, type Summary } from "./support.js";

let server: Sandbox;
let local: Sandbox;
let proc: ResultPromise | undefined;
let url: string;
let token: string;

// The `remote` test project runs every CLI test against a shared server already; this file
// starts its own (on a local sandbox) to compare with a local import, so it runs locally
// only (vitest.config.ts leaves it out of the remote project).
beforeAll(async () => {
  server = sandbox();
  local = sandbox();
  await Promise.all([setupModels(server), setupModels(local)]);
  token = (await ddsctl(server, ["tokens", "create", "--scope", "write", "--json"])).json().token;
  proc = execa("node", [BIN, "serve", "--port", "0", "--quiet"], { cwd: server.dir, env: server.env, reject: false });
  let stderr = "";
  url = await new Promise<string>((resolve, reject) => {
    proc!.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    proc!.then((r) => reject(new Error(`serve exited ${r.exitCode}: ${stderr}`)), reject);
  });
}, 30_000);
afterAll(async () => {
  proc?.kill("SIGTERM");
  await proc;
  server?.cleanup();
  local?.cleanup();
});

/** 1,000 lines, the contexts interleaved so that batches in flight touch different ones. */
function lines(): string[] {
  return Array.from({ length: 1000 }, (_, i) => {
    const ref = `case-${i % 20}`;
    if (i === 333) return "{ not json";
    if (i % 5 === 0) return contribution(ref, "Loan", `src-${i % 3}`, { amount: 100_000 + i });
    return contribution(ref, "Applicant", `src-${i % 3}`, { applicantId: `a${i % 2}`, name: `N${i}`, creditScore: 600 + (i % 200) });
  });
}

describe("import against ddsctl serve", () => {
  it("keeps several batches in flight and ends in the same state as a local import; a rerun replays", async () => {
    const remoteFile = writeLines(server, "in.ndjson", lines());
    const remote = ["--remote", url, "--token", token, "import", "contributions", remoteFile, "--create-contexts", "--concurrency", "4", "--json"];
    const r = await ddsctl(server, remote);
    expect(r.exitCode, r.stderr).toBe(3);
    const summary = r.json<Summary>();
    expect(summary).toMatchObject({ lines: 1000, created: 999, failed: 1, batches: 10, complete: true });
    expect(readRejects(`${remoteFile}.rejects.ndjson`).map((x) => x.line)).toEqual([334]);

    const localFile = writeLines(local, "in.ndjson", lines());
    const l = await ddsctl(local, ["import", "contributions", localFile, "--create-contexts", "--json"]);
    expect(l.json<Summary>()).toMatchObject({ created: 999, superseded: summary.superseded });
    const [want, got] = [await snapshot(local), await snapshot(server)];
    expect(got.contexts).toEqual(want.contexts);
    expect(got.contributions).toEqual(want.contributions);
    expect(got.records).toEqual(want.records);

    const again = await ddsctl(server, remote);
    expect(again.json<Summary>()).toMatchObject({ created: 0, replayed: 999, failed: 1 });
    expect((await snapshot(server)).contributions).toEqual(want.contributions);
  }, 60_000);
});
