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

/** What one walk carries: the keys down to the value at hand, and what it found. */
interface Walk {
  path: (string | number)[];
  problems: ProblemDetail[];
  maxDepth: number;
}

/** The dotted path of the value at hand (`metadata.x.0`), built only when a problem is reported. */
const pathOf = (walk: Walk, key?: string): string => (key === undefined ? walk.path : [...walk.path, key]).join(".");

/** Whether a value was checked already (a body checked by the server is not walked again). */
const checked = new WeakSet<object>();

/**
 * Everything a JSON value may not hold: nesting deeper than {@link MAX_JSON_DEPTH}; the
 * keys `__proto__`, `constructor` and `prototype`, which object-building code would drop
 * or turn into a prototype change; and numbers JSON cannot carry (`1e309` parses to
 * Infinity). The walk stops below a too-deep container, so it recurses at most
 * `maxDepth` calls deep whatever the value (a body nested 100,000 deep costs nothing
 * more), and it allocates nothing for a value without problems: an import walks every line.
 */
export function jsonValueProblems(value: unknown, maxDepth = MAX_JSON_DEPTH): ProblemDetail[] {
  const walk: Walk = { path: [], problems: [], maxDepth };
  visit(value, 0, walk);
  return walk.problems;
}

function visit(v: unknown, depth: number, walk: Walk): void {
  if (typeof v === "number") {
    if (!Number.isFinite(v)) walk.problems.push({ path: pathOf(walk), message: "is a number JSON cannot carry (beyond ±1.8e308); send a smaller number or a string" });
    return;
  }
  if (v === null || typeof v !== "object") return;
  if (++depth > walk.maxDepth) {
    walk.problems.push({ path: pathOf(walk), message: `nests deeper than ${walk.maxDepth} levels of arrays and objects, the limit for JSON request bodies` });
    return;
  }
  const { path, problems } = walk;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && problems.length < MAX_PROBLEMS; i++) {
      path.push(i);
      visit(v[i], depth, walk);
      path.pop();
    }
    return;
  }
  const o = v as Record<string, unknown>;
  // Own keys only, `__proto__` included (JSON.parse makes it an own property). The
  // forbidden keys of an object are reported before what lies below its other keys. Two
  // for-in walks rather than Object.keys: for-in reads V8's key cache, where Object.keys
  // copies it into a new array, for every object of every line an import checks.
  let forbidden = false;
  for (const key in o) {
    if (!FORBIDDEN_SEGMENTS.has(key) || !Object.hasOwn(o, key)) continue;
    forbidden = true;
    if (problems.length < MAX_PROBLEMS) problems.push({ path: pathOf(walk, key), message: `"${key}" is not allowed as a key (it names a JavaScript object internal)` });
  }
  for (const key in o) {
    if (problems.length >= MAX_PROBLEMS) break;
    if ((forbidden && FORBIDDEN_SEGMENTS.has(key)) || !Object.hasOwn(o, key)) continue;
    path.push(key);
    visit(o[key], depth, walk);
    path.pop();
  }
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
