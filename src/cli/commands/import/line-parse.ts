import { DdsError, errors, type Problem } from "../../../contract/errors.js";
import { OVER_LONG_PREFIX_BYTES, type OverLongLine } from "../../ndjson/line-splitter.js";
import type { Reject } from "../../ndjson/rejects.js";

/** A JSON object read from one line. */
export type LineObject = Record<string, unknown>;

/** The problem body of any error (a non-DdsError is a bug: reported without its stack). */
export function problemOf(err: unknown): Problem {
  if (err instanceof DdsError) return err.toProblem();
  return new DdsError("internal_error", `unexpected error: ${(err as Error)?.message ?? String(err)}`).toProblem();
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** A line read as an object, or the problem that rejects it. */
export type ParsedLine = { ok: true; value: LineObject } | { ok: false; problem: Problem };

/** Parses one line into an object, or the problem that rejects it. */
export function parseLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: errors.invalid(`not valid JSON: ${(err as Error).message}`).toProblem() };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, problem: errors.invalid(`each line must be a JSON object, got ${typeName(value)}`).toProblem() };
  }
  return { ok: true, value: value as LineObject };
}

/** The reject of a line over the length limit (its first 1 KiB is kept). */
export function overLongReject(line: OverLongLine, maxLineBytes: number): Reject {
  const problem = new DdsError(
    "payload_too_large",
    `line is ${line.overLong.bytes} bytes, over the ${maxLineBytes}-byte limit (--max-line-bytes); only its first ${OVER_LONG_PREFIX_BYTES} bytes are kept in "input"`,
  ).toProblem();
  return { line: line.no, error: problem, input: line.overLong.prefix, truncated: true };
}
