/**
 * Reading `var` paths, exactly as json-logic-js walks them, plus the two things it lacks:
 * a pipeline-supplied resolver for the top-level data, and a refusal of path segments
 * that reach JavaScript object internals.
 */
import { FORBIDDEN_SEGMENTS } from "../../contract/constants.js";
import type { EvalContext } from "./runtime.js";

/** The first segment of `segments` that names an object internal, if any. */
export function forbiddenSegment(segments: readonly string[]): string | undefined {
  for (const s of segments) if (FORBIDDEN_SEGMENTS.has(s)) return s;
  return undefined;
}

/** The message used for a forbidden segment, at compile and at run time alike. */
export function forbiddenMessage(path: string, segment: string): string {
  return `var path "${path}" uses the reserved segment "${segment}"`;
}

/** True when json-logic-js's `var` would return the whole data for this path. */
export function isWholeDataPath(path: unknown): boolean {
  return path === undefined || path === "" || path === null;
}

/**
 * json-logic-js's walk: descend while the current value is not null/undefined; any
 * property (own or inherited, e.g. `length`) is read as JavaScript reads it.
 * Returns undefined when not found.
 */
export function walkPath(data: unknown, segments: readonly string[]): unknown {
  let current = data;
  for (let i = 0; i < segments.length; i++) {
    if (current === null || current === undefined) return undefined;
    current = (current as Record<string, unknown>)[segments[i]];
  }
  return current;
}

/**
 * Reads a non-empty path from the current data, or through the resolver at the top
 * level, recording top-level reads as inputs. `notFound` replaces an undefined value.
 */
export function readPath(
  key: string,
  segments: readonly string[],
  notFound: unknown,
  data: unknown,
  ctx: EvalContext,
): unknown {
  let value: unknown;
  if (ctx.top) {
    value = ctx.resolver === null ? walkPath(data, segments) : ctx.resolver.get(key);
    ctx.inputs[key] = value === undefined ? null : value;
  } else {
    value = walkPath(data, segments);
  }
  return value === undefined ? notFound : value;
}

/**
 * The whole data (`{"var": ""}`). Through a resolver that is `get("")`: the resolver
 * decides what "everything" means. Not recorded as an input.
 */
export function readWholeData(data: unknown, ctx: EvalContext): unknown {
  return ctx.top && ctx.resolver !== null ? ctx.resolver.get("") : data;
}

/** json-logic-js's `var(a, b)` for a path only known at run time. */
export function readVar(path: unknown, fallback: unknown, data: unknown, ctx: EvalContext): unknown {
  if (isWholeDataPath(path)) return readWholeData(data, ctx);
  const key = String(path);
  const segments = key.split(".");
  const bad = forbiddenSegment(segments);
  if (bad !== undefined) throw new Error(forbiddenMessage(key, bad));
  return readPath(key, segments, fallback === undefined ? null : fallback, data, ctx);
}
