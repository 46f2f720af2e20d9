import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { contribution, readRejects, setupModels, writeLines, type Summary } from "./support.js";

let box: Sandbox;
beforeEach(async () => {
  box = sandbox();
  await setupModels(box);
  expect((await ddsctl(box, ["contexts", "create", "--name", "case-1"])).exitCode).toBe(0);
});
afterEach(() => box.cleanup());

const loan = (amount: number, sourceId = "form") => contribution("case-1", "Loan", sourceId, { amount });

describe("import contributions: failed lines", () => {
  it("writes every failed line verbatim with its line number and error, skips blank lines and other kinds, exits 3", async () => {
    const overLong = JSON.stringify({ contextRef: "case-1", modelName: "Loan", sourceId: "big", sourceType: "document", data: { note: "n".repeat(1_100_000) } });
    const lines = [
      loan(250_000),
      "",
      '{"contextRef": "case-1",',
      "[1,2,3]",
      "42",
      contribution("case-1", "Boat", "form", { length: 12 }),
      loan(10, "typo"),
      overLong,
      contribution("case-1", "Loan", "form2", { colour: "red" }),
      contribution("case-1", "Applicant", "form", { name: "Ada" }),
      contribution("case-1", "Applicant", "form", { applicantId: "a1", name: "Ada" }),
      JSON.stringify({ kind: "Record", recordId: "x" }),
      contribution("case-9", "Loan", "form", { amount: 5000 }),
      JSON.stringify({ contextRef: "case-1", modelName: "Loan", sourceId: "fax-1", sourceType: "fax", data: { amount: 5000 } }),
      "   ",
    ];
    const file = writeLines(box, "in.ndjson", lines);
    const r = await ddsctl(box, ["import", "contributions", file, "--json"]);
    expect(r.exitCode, r.stderr).toBe(3);
    const summary = r.json<Summary>();
    expect(summary).toMatchObject({ lines: 15, created: 2, replayed: 0, failed: 10, skipped: 3, batches: 1, complete: true, rejects: `${file}.rejects.ndjson` });

    const rejects = readRejects(`${file}.rejects.ndjson`);
    expect(rejects.map((x) => [x.line, x.error.code, x.error.status])).toEqual([
      [3, "invalid_request", 400],
      [4, "invalid_request", 400],
      [5, "invalid_request", 400],
      [6, "not_found", 404],
      [7, "validation_failed", 422],
      [8, "payload_too_large", 413],
      [9, "validation_failed", 422],
      [10, "validation_failed", 422],
      [13, "not_found", 404],
      [14, "invalid_request", 400],
    ]);
    for (const x of rejects.filter((x) => x.line !== 8)) expect(x.input).toBe(lines[x.line - 1]);
    const long = rejects.find((x) => x.line === 8)!;
    expect(long.truncated).toBe(true);
    expect(long.input).toBe(overLong.slice(0, 1024));
    expect(long.error.detail).toMatch(/^line is 1100\d+ bytes, over the 1048576-byte limit/);
    expect(rejects[0].error.detail).toMatch(/^not valid JSON: /);
    expect(rejects[1].error.detail).toBe("each line must be a JSON object, got an array");
    expect(rejects[2].error.detail).toBe("each line must be a JSON object, got a number");
    expect(rejects[3].error.detail).toBe("model Boat not found");
    expect(rejects[4].error.errors).toEqual([{ path: "data.amount", message: expect.stringMatching(/at least 1000/) }]);
    expect(rejects[7].error.detail).toMatch(/missing identity: applicantId/);
    expect(rejects[8].error.detail).toBe('context "case-9" not found (add --create-contexts to create contexts on first use)');
    expect(rejects[9].error.errors?.[0]?.path).toBe("sourceType");
    // Each reject is one line of JSON with exactly these keys, in this order.
    const first = readFileSync(`${file}.rejects.ndjson`, "utf8").split("\n")[0];
    expect(Object.keys(JSON.parse(first))).toEqual(["line", "error", "input"]);
    // The terminal shows the first failures with their line numbers.
    expect(r.stderr).toContain("line 3: not valid JSON");
  });

  it("exits 0 and leaves no rejects file when every line succeeds", async () => {
    const file = writeLines(box, "ok.ndjson", [loan(250_000), loan(260_000, "other")]);
    const r = await ddsctl(box, ["import", "contributions", file, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<Summary>()).toMatchObject({ lines: 2, created: 2, failed: 0, rejects: null });
    expect(existsSync(`${file}.rejects.ndjson`)).toBe(false);
  });
});

describe("import --max-errors", () => {
  it("stops after the batch that exceeded it (exit 3, rejects so far), and --resume continues after it", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => (i >= 100 && i < 110 ? `bad ${i + 1}` : loan(100_000 + i, `s${i}`)));
    const file = writeLines(box, "many.ndjson", lines);
    const r = await ddsctl(box, ["import", "contributions", file, "--max-errors", "5", "--json", "--no-wait"]);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.json<Summary>()).toMatchObject({ lines: 200, created: 190, failed: 10, complete: false });
    expect(r.stderr).toMatch(/stopped after line 200/);
    expect(readRejects(`${file}.rejects.ndjson`).map((x) => x.line)).toEqual([101, 102, 103, 104, 105, 106, 107, 108, 109, 110]);

    const resumed = await ddsctl(box, ["import", "contributions", file, "--resume", "--json", "--no-wait"]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.json<Summary>()).toMatchObject({ lines: 300, created: 100, skipped: 200, failed: 0, complete: true });
    // The first run's rejects stay: they are still the lines that failed.
    expect(readRejects(`${file}.rejects.ndjson`)).toHaveLength(10);
    const list = await ddsctl(box, ["contributions", "list", "--limit", "500", "--json"]);
    expect(list.json().data).toHaveLength(290);
  });
});

describe("import --max-errors, then fixing the lines in place and --resume", () => {
  it("sends the fixed lines as they read now and continues after the checkpoint; nothing stored is sent again; an edited stored line is reported", async () => {
    // Lines 101-105 are not JSON (refused here), 106-110 below the minimum (refused by the service).
    const bad = (i: number) => (i < 105 ? `bad ${i + 1}` : loan(5, `s${i}`));
    const lines = Array.from({ length: 300 }, (_, i) => (i >= 100 && i < 110 ? bad(i) : loan(100_000 + i, `s${i}`)));
    const file = writeLines(box, "fix.ndjson", lines);
    const r = await ddsctl(box, ["import", "contributions", file, "--max-errors", "5", "--json", "--no-wait"]);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.json<Summary>()).toMatchObject({ lines: 200, created: 190, failed: 10, complete: false });
    expect(r.stderr).toMatch(/stopped after line 200: .*fix them in place and rerun with --resume/);

    // Fix all but line 110 in place, as the message says, and resume.
    const fixed = lines.map((l, i) => (i >= 100 && i < 109 ? loan(100_000 + i, `s${i}`) : l));
    writeLines(box, "fix.ndjson", fixed);
    const resumed = await ddsctl(box, ["import", "contributions", file, "--resume", "--json", "--no-wait"]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.json<Summary>()).toMatchObject({ lines: 300, created: 109, replayed: 0, superseded: 0, failed: 0, changed: 0, skipped: 191, complete: true });
    // The rejects file now holds only the line left as it was.
    expect(readRejects(`${file}.rejects.ndjson`).map((x) => [x.line, x.input])).toEqual([[110, fixed[109]]]);
    const contributions = async () => (await ddsctl(box, ["contributions", "list", "--limit", "500", "--json"])).json().data as { status: string }[];
    expect((await contributions()).filter((c) => c.status === "accepted")).toHaveLength(299);

    // Line 110 fixed too: only it is sent; then the rejects file is gone.
    fixed[109] = loan(100_109, "s109");
    writeLines(box, "fix.ndjson", fixed);
    const last = await ddsctl(box, ["import", "contributions", file, "--resume", "--json", "--no-wait"]);
    expect(last.json<Summary>()).toMatchObject({ lines: 300, created: 1, skipped: 299, failed: 0, rejects: null });
    expect(existsSync(`${file}.rejects.ndjson`)).toBe(false);
    // Run again: nothing is sent twice.
    expect((await ddsctl(box, ["import", "contributions", file, "--resume", "--json", "--no-wait"])).json<Summary>()).toMatchObject({ created: 0, skipped: 300 });

    // A line stored before and edited since is reported (exit 3), never sent a second time.
    fixed[49] = loan(999_999, "s49");
    writeLines(box, "fix.ndjson", fixed);
    const edited = await ddsctl(box, ["import", "contributions", file, "--resume", "--json", "--no-wait"]);
    expect(edited.exitCode).toBe(3);
    expect(edited.json<Summary>()).toMatchObject({ created: 0, changed: 1, skipped: 299 });
    expect(edited.stderr).toMatch(/1 line\(s\) imported before have been edited since \(line 50\): not sent again/);
    const all = await contributions();
    expect(all).toHaveLength(300);
    expect(all.filter((c) => c.status === "superseded")).toHaveLength(0);
  });
});

describe("import --dry-run", () => {
  it("checks every line locally and writes nothing but its rejects: no contribution, no context, no checkpoint", async () => {
    const lines = [
      loan(250_000),
      contribution("new-case", "Loan", "form", { amount: 5000 }),
      "nope",
      JSON.stringify({ contextRef: "case-1", modelName: "Loan", sourceId: "s", sourceType: "fax", data: {} }),
      JSON.stringify({ contextRef: "case-1", modelName: "Loan", sourceId: "s", sourceType: "document", data: {}, extra: 1 }),
      contribution("case-1", "Ghost", "form", {}),
    ];
    const file = writeLines(box, "dry.ndjson", lines);
    const r = await ddsctl(box, ["import", "contributions", file, "--dry-run", "--create-contexts", "--json"]);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.json<Summary>()).toMatchObject({ dryRun: true, lines: 6, valid: 2, failed: 4, created: 0, batches: 0 });
    expect(r.stderr).toMatch(/line 4: .*sourceType/);
    expect(r.stderr).toMatch(/line 5: .*unknown property "extra"/);
    expect(existsSync(`${file}.rejects.ndjson`)).toBe(false);
    expect(readRejects(`${file}.dry-run.rejects.ndjson`).map((x) => x.line)).toEqual([3, 4, 5, 6]);
    expect(existsSync(`${file}.checkpoint.json`)).toBe(false);
    expect((await ddsctl(box, ["contributions", "list", "--json"])).json().data).toHaveLength(0);
    const contexts = (await ddsctl(box, ["contexts", "list", "--json"])).json().data as { name: string }[];
    expect(contexts.map((c) => c.name)).toEqual(["case-1"]);

    // Asked for a rejects file, a dry run writes it (and still nothing else).
    const withFile = await ddsctl(box, ["import", "contributions", file, "--dry-run", "--rejects", "would-fail.ndjson"]);
    expect(withFile.exitCode).toBe(3);
    expect(readRejects(`${box.dir}/would-fail.ndjson`).map((x) => x.line)).toEqual([2, 3, 4, 5, 6]);
  });
});
