import { execa } from "execa";
import { existsSync, readFileSync } from "node:fs";
import { expect } from "vitest";
import { BIN, ddsctl, ddsctlBinary, type Sandbox } from "../../helpers/cli.js";
import { contribution, snapshot, writeLines, type Summary } from "./support.js";

/** Contexts and lines of the case file. */
export const CONTEXTS = 200;
export const LINES = 20_000;

/** A tiny seeded PRNG (mulberry32), so a failure can be replayed with its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The friendly shape: 20,000 lines over 200 contexts, in runs of 10 lines per context so
 * every window touches several contexts (and contexts are created mid-file): loans,
 * applicants and employments from sources that repeat (so contributions supersede), plus a
 * bad line now and then.
 */
export function caseFile(): string[] {
  const r = rng(42);
  const lines: string[] = [];
  for (let i = 0; i < LINES; i++) {
    const ref = `case-${Math.floor(i / 10) % CONTEXTS}`;
    const k = i % 10;
    const src = `src-${Math.floor(r() * 3)}`;
    if (i % 997 === 500) lines.push(contribution(ref, "Loan", src, { amount: 5 }));
    else if (i % 1499 === 700) lines.push(`{"contextRef": "${ref}", oops}`);
    else if (k < 3) lines.push(contribution(ref, "Loan", src, { amount: 100_000 + Math.floor(r() * 400_000), propertyValue: 200_000 + Math.floor(r() * 500_000), monthlyDebt: 500 + Math.floor(r() * 20) * 100 }, { fieldConfidences: { amount: Math.round(r() * 100) / 100 } }));
    else if (k < 7) lines.push(contribution(ref, "Applicant", src, { applicantId: `a${k % 2}`, name: `N${Math.floor(r() * 5)}`, creditScore: 550 + Math.floor(r() * 300) }, { sourceType: r() < 0.5 ? "document" : "integration" }));
    else lines.push(contribution(ref, "Employment", src, { employmentId: `e${k % 2}`, applicantId: `a${k % 2}`, monthlyIncome: 2000 + Math.floor(r() * 6000) }));
  }
  return lines;
}

/**
 * The record-heavy shape: contexts interleaved line by line (`i % CONTEXTS`), almost every
 * line a new applicant; now and then a line for an earlier applicant of the same context
 * (it supersedes) and a bad line.
 */
export function recordHeavyFile(): string[] {
  const r = rng(7);
  const lines: string[] = [];
  for (let i = 0; i < LINES; i++) {
    const ref = `case-${i % CONTEXTS}`;
    if (i % 997 === 500) lines.push(contribution(ref, "Applicant", "feed", { applicantId: `p${i}`, creditScore: "high" }));
    else if (i % 1499 === 700) lines.push(`{"contextRef": "${ref}", oops}`);
    else if (i % 50 === 49) lines.push(contribution(ref, "Applicant", "feed", { applicantId: `p${i - CONTEXTS}`, creditScore: 550 + Math.floor(r() * 300) }));
    else lines.push(contribution(ref, "Applicant", "feed", { applicantId: `p${i}`, name: `Person ${i}`, creditScore: 550 + Math.floor(r() * 300) }, { sourceType: "integration" }));
  }
  return lines;
}

/** The shapes the scenario runs on, by name. */
export const SHAPES = [
  ["friendly", caseFile],
  ["record-heavy", recordHeavyFile],
] as const;

/**
 * The kill-and-rerun scenario: one clean import into `clean`, and into `killed` runs cut
 * by SIGKILL at random moments (every other one resumed from the checkpoint, the others
 * started over), then a last `--resume`. Both databases must end the same, and so must
 * the rejects files. The sandboxes hold the mortgage models already (on any store) and
 * nothing else: each shape needs a fresh pair.
 */
export async function killAndRerun(clean: Sandbox, killed: Sandbox, shape: () => string[] = caseFile): Promise<void> {
  const lines = shape();
  const cleanFile = writeLines(clean, "case.ndjson", lines);
  const file = writeLines(killed, "case.ndjson", lines);
  const args = (f: string) => ["import", "contributions", f, "--create-contexts", "--no-wait", "--quiet", "--json"];

  const t0 = Date.now();
  // Timed as a real process, like the runs it is killed in.
  const reference = await ddsctlBinary(clean, args(cleanFile));
  const runtime = Date.now() - t0;
  expect(reference.exitCode, reference.stderr).toBe(3);
  const expected = reference.json<Summary>();
  expect(expected).toMatchObject({ lines: LINES, complete: true });
  expect(expected.failed).toBeGreaterThan(0);

  const seed = Number(process.env.KILL_SEED ?? Date.now() % 100_000);
  const r = rng(seed);
  const log: string[] = [`seed ${seed}, clean run ${runtime} ms`];
  let kills = 0;
  for (let attempt = 0; attempt < 8 && kills < 4; attempt++) {
    // Every other rerun resumes from the checkpoint; the others start over and rely on
    // the idempotency keys alone.
    const resume = attempt % 2 === 1 ? ["--resume"] : [];
    const child = execa("node", [BIN, ...args(file), ...resume], { cwd: killed.dir, env: killed.env, reject: false });
    // Somewhere within what is left of this run: a resumed run has only the rest of the
    // file to do, a fresh one replays the done part quickly first.
    const done = existsSync(`${file}.checkpoint.json`) ? JSON.parse(readFileSync(`${file}.checkpoint.json`, "utf8")).lastCompletedLine / LINES : 0;
    const delay = Math.floor(100 + r() * runtime * (1 - done) * 0.8);
    const timer = setTimeout(() => child.kill("SIGKILL"), delay);
    const res = await child;
    clearTimeout(timer);
    log.push(`run ${attempt + 1}${resume.length ? " --resume" : ""} (checkpoint ${Math.round(done * 100)}%): kill at ${delay} ms -> ${res.signal ?? `exit ${res.exitCode}`}`);
    if (res.signal === "SIGKILL") kills++;
  }
  expect(kills, log.join("\n")).toBeGreaterThanOrEqual(3);

  // The last resume reports its own lines only: the rejects after its checkpoint decide its
  // exit code (none when a killed run had already finished the file and checkpointed it).
  const cpFile = `${file}.checkpoint.json`;
  const before = existsSync(cpFile) ? (JSON.parse(readFileSync(cpFile, "utf8")) as { lastCompletedLine: number }) : { lastCompletedLine: 0 };
  const last = await ddsctl(killed, [...args(file), "--resume"]);
  const summary = last.json<Summary>();
  expect(summary.complete).toBe(true);
  const rejectLines = readFileSync(`${file}.rejects.ndjson`, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { line: number }).line);
  const newRejects = rejectLines.filter((line) => line > before.lastCompletedLine).length;
  expect(summary.failed, log.join("\n")).toBe(newRejects);
  expect(summary.skipped).toBe(before.lastCompletedLine);
  expect(last.exitCode, `${log.join("\n")}\n${last.stderr}`).toBe(newRejects > 0 ? 3 : 0);

  for (const box of [clean, killed]) expect((await ddsctl(box, ["pipeline", "run", "--quiet"])).exitCode).toBe(0);
  const [want, got] = [await snapshot(clean), await snapshot(killed)];
  expect(got.contexts, log.join("\n")).toEqual(want.contexts);
  expect(got.contexts).toHaveLength(CONTEXTS);
  expect(got.contributions, log.join("\n")).toEqual(want.contributions);
  expect(want.contributions.accepted + want.contributions.superseded).toBe(expected.created);
  expect(got.records, log.join("\n")).toEqual(want.records);
  expect(got.freshness).toEqual(["resolved"]);
  // The rejects file is the same too, however often the import was cut short.
  expect(readFileSync(`${file}.rejects.ndjson`, "utf8")).toBe(readFileSync(`${cleanFile}.rejects.ndjson`, "utf8"));
}
