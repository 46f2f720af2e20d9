import { appendFileSync, readFileSync, rmSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { contribution, setupModels, snapshot, writeLines, type Summary } from "./support.js";

let box: Sandbox;
beforeEach(async () => {
  box = sandbox();
  await setupModels(box);
});
afterEach(() => box.cleanup());

/** 250 lines over 5 contexts: loans, applicants, a superseding repeat, and two bad lines. */
function caseLines(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 250; i++) {
    const ctx = `case-${i % 5}`;
    if (i === 17 || i === 180) lines.push(`{"broken": ${i}`);
    else if (i % 3 === 0) lines.push(contribution(ctx, "Loan", `form-${i % 4}`, { amount: 100_000 + i }));
    else lines.push(contribution(ctx, "Applicant", `form-${i % 4}`, { applicantId: `a${i % 2}`, name: `Applicant ${i}` }));
  }
  return lines;
}

describe("rerunning an import", () => {
  it("creates nothing the second time: every applied line is reported as replayed", async () => {
    const file = writeLines(box, "case.ndjson", caseLines());
    const first = await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--json"]);
    expect(first.exitCode, first.stderr).toBe(3);
    const s1 = first.json<Summary>();
    expect(s1).toMatchObject({ lines: 250, created: 248, replayed: 0, failed: 2, skipped: 0, batches: 3, complete: true });
    expect(s1.superseded).toBeGreaterThan(0);
    const before = await snapshot(box);
    const rejects = readFileSync(`${file}.rejects.ndjson`, "utf8");

    const second = await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--json"]);
    expect(second.exitCode, second.stderr).toBe(3);
    // The first run's ledger says which lines are stored: none is sent again.
    expect(second.json<Summary>()).toMatchObject({ lines: 250, created: 0, replayed: 248, superseded: 0, failed: 2, batches: 0 });
    expect(await snapshot(box)).toEqual(before);
    expect(before.contexts).toEqual(["case-0", "case-1", "case-2", "case-3", "case-4"]);
    expect(before.contributions.accepted + before.contributions.superseded).toBe(248);
    expect(readFileSync(`${file}.rejects.ndjson`, "utf8")).toBe(rejects);
  });

  it("reads stdin, with rejects in ./import.rejects.ndjson, and is idempotent there too", async () => {
    const input = `${caseLines().slice(0, 120).join("\n")}\n`;
    const first = await ddsctl(box, ["import", "contributions", "-", "--create-contexts", "--json"], { input });
    expect(first.exitCode, first.stderr).toBe(3);
    expect(first.json<Summary>()).toMatchObject({ lines: 120, created: 119, failed: 1, rejects: "import.rejects.ndjson" });
    expect(readFileSync(join(box.dir, "import.rejects.ndjson"), "utf8")).toContain('"line":18');
    const again = await ddsctl(box, ["import", "contributions", "-", "--create-contexts", "--json"], { input });
    expect(again.json<Summary>()).toMatchObject({ created: 0, replayed: 119 });
    const resume = await ddsctl(box, ["import", "contributions", "-", "--resume"], { input });
    expect(resume.exitCode).toBe(2);
    expect(resume.stderr).toMatch(/--resume on stdin or a pipe needs --checkpoint/);
  });
});

describe("--resume", () => {
  it("skips what the checkpoint records as done and refuses a checkpoint of another file or kind", async () => {
    const file = writeLines(box, "case.ndjson", caseLines());
    expect((await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--no-wait"])).exitCode).toBe(3);
    const cp = JSON.parse(readFileSync(`${file}.checkpoint.json`, "utf8"));
    expect(cp).toMatchObject({ version: 1, kind: "contributions", lastCompletedLine: 250, complete: true, rejects: { path: `${file}.rejects.ndjson` } });
    expect(cp.input).toMatchObject({ path: file, size: readFileSync(file).length, headSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(cp.bytes).toBe(cp.input.size);

    const resumed = await ddsctl(box, ["import", "contributions", file, "--resume", "--json", "--no-wait"]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.json<Summary>()).toMatchObject({ lines: 250, skipped: 250, created: 0, replayed: 0, batches: 0 });
    // Nothing was read past the checkpoint: no rate (skipped lines are no work), in JSON or in the table.
    expect(resumed.json<Summary>().rate).toBeNull();
    const table = await ddsctl(box, ["import", "contributions", file, "--resume", "--no-wait"]);
    expect(table.stdout).toMatch(/^skipped: +250$/m);
    expect(table.stdout).not.toMatch(/^rate:/m);

    const otherKind = await ddsctl(box, ["import", "records-update", file, "--resume"]);
    expect(otherKind.exitCode).toBe(2);
    expect(otherKind.stderr).toMatch(/checkpoint .* is for "import contributions"/);

    // Lines added to a finished file: a resume sends those alone.
    appendFileSync(file, `${contribution("case-0", "Loan", "late", { amount: 5000 })}\n`);
    const grown = await ddsctl(box, ["import", "contributions", file, "--resume", "--json", "--no-wait"]);
    expect(grown.exitCode, grown.stderr).toBe(0);
    expect(grown.json<Summary>()).toMatchObject({ lines: 251, skipped: 250, created: 1, failed: 0, changed: 0 });

    // A checkpoint without its line ledger (an older ddsctl wrote it) needs the same input.
    rmSync(`${file}.checkpoint.lines`);
    appendFileSync(file, `${contribution("case-0", "Loan", "later", { amount: 6000 })}\n`);
    const older = await ddsctl(box, ["import", "contributions", file, "--resume"]);
    expect(older.exitCode).toBe(2);
    expect(older.stderr).toMatch(/the input changed since checkpoint/);
  });

  it("refuses to continue a rejects file shorter than the checkpoint records, and leaves it as it is", async () => {
    const file = writeLines(box, "case.ndjson", caseLines());
    expect((await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--no-wait"])).exitCode).toBe(3);
    const rejectsPath = `${file}.rejects.ndjson`;
    const full = readFileSync(rejectsPath, "utf8");
    truncateSync(rejectsPath, full.indexOf("\n") + 1);
    const cut = readFileSync(rejectsPath, "utf8");
    const r = await ddsctl(box, ["import", "contributions", file, "--resume"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/rejects file .* is shorter than the checkpoint .* records \(\d+ bytes\)/);
    expect(readFileSync(rejectsPath, "utf8")).toBe(cut);
    // Without --resume the import starts over and writes the whole rejects file again.
    expect((await ddsctl(box, ["import", "contributions", file, "--no-wait"])).exitCode).toBe(3);
    expect(readFileSync(rejectsPath, "utf8")).toBe(full);
  });

  it("with stdin and --checkpoint, checks the covered lines one by one: a stored line edited since is reported, not sent again", async () => {
    const lines = caseLines();
    const input = `${lines.join("\n")}\n`;
    const cpPath = join(box.dir, "stdin.checkpoint.json");
    expect((await ddsctl(box, ["import", "contributions", "-", "--create-contexts", "--checkpoint", cpPath, "--no-wait"], { input })).exitCode).toBe(3);
    const same = await ddsctl(box, ["import", "contributions", "-", "--resume", "--checkpoint", cpPath, "--json", "--no-wait"], { input });
    expect(same.json<Summary>()).toMatchObject({ skipped: 250, created: 0 });
    // What was stored (a remote server's worker may still be resolving it: records can change).
    const stored = async () => {
      const { contexts, contributions } = await snapshot(box);
      return { contexts, contributions };
    };
    const before = await stored();
    const edited = `${[lines[0].replace("case-0", "case-7"), ...lines.slice(1)].join("\n")}\n`;
    const r = await ddsctl(box, ["import", "contributions", "-", "--resume", "--checkpoint", cpPath, "--json", "--no-wait"], { input: edited });
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.json<Summary>()).toMatchObject({ lines: 250, skipped: 249, changed: 1, created: 0, failed: 0 });
    expect(r.stderr).toMatch(/1 line\(s\) imported before have been edited since \(line 1\): not sent again/);
    expect(await stored()).toEqual(before);
  });
});
