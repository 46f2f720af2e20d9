import { errors, type ProblemDetail } from "./errors.js";
import { FORBIDDEN_SEGMENTS } from "./constants.js";

/**
 * How deep a JSON request body may nest arrays and objects, the body's own object or array
 * counting as level 1. Metadata, field values of type `json`, rule expressions and the
 * `data` of a dry-run all live inside a body, so this bounds every stored JSON value well
 * below the 1,000 levels SQLite's JSON functions read, and below any recursion depth of
 * the code that later walks them (validation, canonical JSON, JSON Logic).
 */
export const MAX_JSON_DEPTH = 64;

/** Problems reported at most per value (a hostile body could hold millions). */
const MAX_PROBLEMS = 20;

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  key: string | number;
}

/** The dotted path of a frame (`metadata.x.0`), built only when a problem is reported. */
function pathOf(frame: Frame): string {
  const parts: (string | number)[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) parts.push(f.key);
  return parts.reverse().join(".");
}

/** Whether a value was checked already (a body checked by the server is not walked again). */
const checked = new WeakSet<object>();

/**
 * Everything a JSON value may not hold, found without recursion (a stack of frames, so a
 * body nested 100,000 deep costs memory, never the call stack): nesting deeper than
 * {@link MAX_JSON_DEPTH}; the keys `__proto__`, `constructor` and `prototype`, which
 * object-building code would drop or turn into a prototype change; and numbers JSON
 * cannot carry (`1e309` parses to Infinity). The walk stops below a too-deep container.
 */
export function jsonValueProblems(value: unknown, maxDepth = MAX_JSON_DEPTH): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const stack: Frame[] = [{ value, depth: 0, parent: undefined, key: "" }];
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) problems.push({ path: pathOf(frame), message: "is a number JSON cannot carry (beyond ±1.8e308); send a smaller number or a string" });
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    const depth = frame.depth + 1;
    if (depth > maxDepth) {
      problems.push({ path: pathOf(frame), message: `nests deeper than ${maxDepth} levels of arrays and objects, the limit for JSON request bodies` });
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth, parent: frame, key: i });
      continue;
    }
    // Own keys only, `__proto__` included: JSON.parse makes it an own property.
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const child: Frame = { value: (v as Record<string, unknown>)[key], depth, parent: frame, key };
      if (FORBIDDEN_SEGMENTS.has(key)) {
        problems.push({ path: pathOf(child), message: `"${key}" is not allowed as a key (it names a JavaScript object internal)` });
        continue;
      }
      stack.push(child);
    }
  }
  return problems;
}

/**
 * Throws 422 `validation_failed`, listing each problem with its path, when a JSON value
 * breaks the limits of {@link jsonValueProblems}. `what` names the value in the message.
 * A value that passed once is remembered and not walked again.
 */
export function assertJsonValue(value: unknown, what = "request body"): void {
  if (value === null || typeof value !== "object" || checked.has(value)) return;
  const problems = jsonValueProblems(value);
  if (problems.length > 0) {
    const first = problems[0];
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
    throw errors.validation(`${what} is invalid: ${first.path ? `${first.path}: ` : ""}${first.message}${more}`, problems);
  }
  checked.add(value);
}
