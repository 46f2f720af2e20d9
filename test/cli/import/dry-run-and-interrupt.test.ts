import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { contribution, readRejects, setupModels, writeLines, type Summary } from "./support.js";

let box: Sandbox;
beforeAll(async () => {
  box = sandbox();
  await setupModels(box);
});
afterAll(() => box.cleanup());

describe("import --dry-run runs every check the real import runs that needs no write", () => {
  const lines = [
    contribution("dry-1", "Loan", "doc-1", { amount: 250000 }),
    contribution("dry-1", "Loan", "doc-2", { amount: "abc" }),
    contribution("dry-1", "Loan", "doc-3", { amount: 10 }),
    contribution("dry-1", "Loan", "doc-4", { colour: "red" }),
    contribution("dry-1", "Applicant", "doc-5", { name: "no identity" }),
    contribution("dry-1", "Applicant", "doc-6", { applicantId: "a-1", name: "Ann", creditScore: 700.5 }),
    contribution("dry-1", "Loan", "doc-7", { amount: 300000 }, { fieldConfidences: { amount: 2 } }),
  ];

  it("refuses a wrong type, a value below its minimum, an unknown field, a missing identity, a bad confidence; the real import agrees line for line", async () => {
    const file = writeLines(box, "dry.ndjson", lines);
    const dry = await ddsctl(box, ["import", "contributions", file, "--dry-run", "--create-contexts", "--json"]);
    expect(dry.exitCode, dry.stderr).toBe(3);
    const drySummary = dry.json() as Summary;
    expect(drySummary).toMatchObject({ lines: 7, valid: 1, failed: 6, rejects: `${file}.dry-run.rejects.ndjson` });
    // Its rejects go beside the real run's, never over them.
    expect(existsSync(`${file}.rejects.ndjson`)).toBe(false);
    const dryRejected = readRejects(`${file}.dry-run.rejects.ndjson`);

    const real = await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--json"]);
    expect(real.exitCode, real.stderr).toBe(3);
    expect(real.json() as Summary).toMatchObject({ lines: 7, created: 1, failed: 6 });
    const rejected = readFileSync(`${file}.rejects.ndjson`, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { line: number }).line);
    expect(rejected).toEqual([2, 3, 4, 5, 6, 7]);
    // The same lines, in the same format: {line, error, input} with the input verbatim.
    expect(dryRejected.map((r) => r.line)).toEqual(rejected);
    expect(dryRejected.map((r) => r.input)).toEqual(readRejects(`${file}.rejects.ndjson`).map((r) => r.input));
  });

  it("the dry run's rejects are the lines to fix: fixed, the file imports clean", async () => {
    const file = writeLines(box, "dry-fix.ndjson", lines.slice(0, 3));
    const dry = await ddsctl(box, ["import", "contributions", file, "--dry-run", "--create-contexts"]);
    expect(dry.exitCode).toBe(3);
    expect(dry.stderr).toContain(`see ${file}.dry-run.rejects.ndjson`);
    const bad = new Set(readRejects(`${file}.dry-run.rejects.ndjson`).map((r) => r.input));
    expect(bad.size).toBe(2);
    writeLines(box, "dry-fix.ndjson", lines.slice(0, 3).filter((l) => !bad.has(l)));
    const again = await ddsctl(box, ["import", "contributions", file, "--dry-run", "--create-contexts"]);
    expect(again.exitCode, again.stderr).toBe(0);
    // A clean dry run leaves no rejects file (and removes the last one).
    expect(existsSync(`${file}.dry-run.rejects.ndjson`)).toBe(false);
  });

  it("words every refusal as the real import does: one message per problem, whichever run finds it", async () => {
    const file = writeLines(box, "dry-words.ndjson", lines);
    const dryRejects = join(box.dir, "dry-words.dry.ndjson");
    expect((await ddsctl(box, ["import", "contributions", file, "--dry-run", "--create-contexts", "--rejects", dryRejects])).exitCode).toBe(3);
    expect((await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--no-wait"])).exitCode).toBe(3);
    const errorsOf = (path: string) => readRejects(path).map((r) => ({ line: r.line, detail: r.error.detail, errors: r.error.errors }));
    const dry = errorsOf(dryRejects);
    expect(dry).toEqual(errorsOf(`${file}.rejects.ndjson`));
    expect(dry.find((r) => r.line === 5)?.detail).toBe("contribution is invalid: data: missing identity: applicantId (or give recordId)");
  });
});

describe("Ctrl-C during an import", () => {
  it("stops after the batches in flight, prints the summary and the exact --resume command, exits 130; the resume finishes the job", async () => {
    const stdin = new PassThrough();
    let press: (() => void) | undefined;
    const checkpoint = join(box.dir, "cut.checkpoint.json");
    const args = ["import", "contributions", "-", "--checkpoint", checkpoint, "--create-contexts", "--json"];
    const first = (n: number) => contribution(`cut-${n % 5}`, "Loan", `cut-doc-${n}`, { amount: 100000 + n });
    const running = ddsctl(box, args, { stdin, onInterrupt: (p) => (press = p) });
    // Two full windows, then wait until they are checkpointed before pressing Ctrl-C.
    for (let n = 1; n <= 200; n++) stdin.write(`${first(n)}\n`);
    while (!existsSync(checkpoint)) await new Promise((r) => setImmediate(r));
    press!();
    const r = await running;
    expect(r.exitCode, r.stderr).toBe(130);
    const summary = r.json() as Summary;
    expect(summary.complete).toBe(false);
    expect(summary.created).toBeGreaterThanOrEqual(100);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("interrupted"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`continue with: ddsctl import contributions - --checkpoint ${checkpoint} --create-contexts --json --resume`);

    // The printed command continues where it stopped: the whole input again, nothing twice.
    const all = Array.from({ length: 300 }, (_, i) => first(i + 1)).join("\n");
    const resumed = await ddsctl(box, [...args, "--resume"], { input: `${all}\n` });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const done = resumed.json() as Summary;
    expect(done.complete).toBe(true);
    expect(done.created + done.skipped + done.replayed).toBe(300);
    expect(summary.created + done.created).toBe(300);
  });
});
