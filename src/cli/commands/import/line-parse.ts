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

/**
 * A copy of a line's object with `modelName` replaced by `modelId` and `contextRef` by
 * `contextId` (where given), each in the key's place, and `kind` left out. A copy, not
 * `delete` in place: deleting any key but the last one added makes V8 keep the object as a
 * hash table (its "dictionary mode"), and every read of every item after that (the
 * service's checks, the JSON limits' walk) was slower for it; copied, every line of a file
 * shares one hidden class. A `__proto__` key (JSON.parse makes it an own property, which
 * the service refuses) is defined as one on the copy too: assigned, it would set the
 * copy's prototype.
 */
export function withIds(obj: LineObject, modelId: string | undefined, contextId: string | undefined): LineObject {
  const out: LineObject = {};
  for (const key in obj) {
    if (!Object.hasOwn(obj, key) || key === "kind") continue;
    if (key === "modelName" && modelId !== undefined) out.modelId = modelId;
    else if (key === "contextRef" && contextId !== undefined) out.contextId = contextId;
    else if (key === "__proto__") Object.defineProperty(out, key, { value: obj[key], enumerable: true, writable: true, configurable: true });
    else out[key] = obj[key];
  }
  return out;
}

/** The reject of a line over the length limit (its first 1 KiB is kept). */
export function overLongReject(line: OverLongLine, maxLineBytes: number): Reject {
  const problem = new DdsError(
    "payload_too_large",
    `line is ${line.overLong.bytes} bytes, over the ${maxLineBytes}-byte limit (--max-line-bytes); only its first ${OVER_LONG_PREFIX_BYTES} bytes are kept in "input"`,
  ).toProblem();
  return { line: line.no, error: problem, input: line.overLong.prefix, truncated: true };
}
