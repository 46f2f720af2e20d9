import { expect } from "vitest";
import { ddsctl, type RunResult, type Sandbox } from "../helpers/cli.js";

/** A problem+json body as the CLI writes it to stderr under --json. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: { path: string; message: string }[];
}

const STACK_LINE = /^ {4}at /m;

/**
 * Runs the real binary and checks what must hold for every run: no stack trace on
 * stderr, and (unless --quiet) the target banner as the first stderr line once a
 * command has opened the database.
 */
export async function run(box: Sandbox, args: string[], input?: string): Promise<RunResult> {
  const r = await ddsctl(box, args, input === undefined ? {} : { input });
  expect(r.stderr, `stack trace in stderr of ddsctl ${args.join(" ")}`).not.toMatch(STACK_LINE);
  return r;
}

/** Runs with --json and a JSON body on stdin (`-f -`). */
export function runBody(box: Sandbox, args: string[], body: unknown): Promise<RunResult> {
  return run(box, [...args, "-f", "-", "--json"], JSON.stringify(body));
}

/** stderr lines without the `local <db>` banner. */
export function messages(r: RunResult): string[] {
  return r.stderr.split("\n").filter((l) => l.length > 0 && !l.startsWith("local ") && !l.startsWith("remote "));
}

/** The problem object of a failed --json run: the one non-banner stderr line, parsed. */
export function problemOf(r: RunResult): ProblemBody {
  const lines = messages(r);
  expect(lines, `stderr: ${r.stderr}`).toHaveLength(1);
  return JSON.parse(lines[0]) as ProblemBody;
}

/** Asserts a failed --json run: exit code, problem status and code; returns the problem. */
export function expectProblem(r: RunResult, exitCode: number, status: number, code: string): ProblemBody {
  expect(r.exitCode, `stderr: ${r.stderr}`).toBe(exitCode);
  expect(r.stdout).toBe("");
  const p = problemOf(r);
  expect(p).toMatchObject({ status, code });
  expect(p.type).toMatch(/^https?:\/\//);
  expect(typeof p.title).toBe("string");
  expect(typeof p.detail).toBe("string");
  return p;
}

/** Asserts a failed run without --json: exit code and exactly one `error: …` line. */
export function expectErrorLine(r: RunResult, exitCode: number, pattern?: RegExp): string {
  expect(r.exitCode, `stderr: ${r.stderr}`).toBe(exitCode);
  expect(r.stdout).toBe("");
  const lines = messages(r);
  expect(lines, `stderr: ${r.stderr}`).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: \S/);
  if (pattern) expect(lines[0]).toMatch(pattern);
  return lines[0];
}

/** Asserts a successful --json run and returns its parsed stdout. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests index freely into API JSON
export function ok(r: RunResult): any {
  expect(r.exitCode, `stderr: ${r.stderr}`).toBe(0);
  return r.json();
}

let counter = 0;
/** A name unique within the test process (one sandbox is shared by a file). */
export function uniq(prefix: string): string {
  counter += 1;
  return `${prefix}${counter}x${process.pid}`;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A syntactically valid UUID that no resource has. */
export const MISSING_ID = "01900000-0000-7000-8000-000000000000";

/** Creates a model from a body and returns it (asserting success). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API JSON
export async function createModel(box: Sandbox, body: unknown): Promise<any> {
  return ok(await runBody(box, ["models", "create"], body));
}

/** Moves a model or context and returns the resulting JSON (asserting success). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API JSON
export async function setStatus(box: Sandbox, noun: "models" | "contexts", ref: string, status: string): Promise<any> {
  return ok(await run(box, [noun, "status", ref, status, "--json"]));
}

/** Creates a context with optional flags and returns it (asserting success). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API JSON
export async function createContext(box: Sandbox, flags: string[] = []): Promise<any> {
  return ok(await run(box, ["contexts", "create", ...flags, "--json"]));
}
