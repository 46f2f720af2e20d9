import { errors, isDdsError, type ProblemDetail } from "../contract/errors.js";
import { checkListQuery, LIST_SPECS, parseListQuery, type ListQuery } from "../contract/list-query.js";
import type { RouteSpec } from "../contract/routes.js";
import { pushAll } from "../portable/arrays.js";

/** What a route's query string yields: a list query, include options, or nothing. */
export type ParsedQuery = ListQuery | { include: string[] } | undefined;

/** Runs `check`, collecting its 400 as a problem at `path` instead of throwing. */
function collect(problems: ProblemDetail[], path: string, check: () => void): void {
  try {
    check();
  } catch (err) {
    if (!isDdsError(err)) throw err;
    problems.push({ path, message: err.message });
  }
}

function fail(problems: ProblemDetail[]): never {
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  throw errors.invalid(`${problems[0].message}${more}`, problems);
}

/**
 * Parses and checks a route's query string (docs/rest-api.md): limit, cursor, sort and
 * `filter[field][op]` on lists, `include` where a route takes it, nothing else. Every bad
 * parameter is listed in the 400's `errors`, each with its parameter as `path`.
 */
export function parseRouteQuery(route: RouteSpec, params: URLSearchParams): ParsedQuery {
  const problems: ProblemDetail[] = [];
  const spec = route.query;
  if (spec.kind === "list") {
    for (const [key, value] of params) {
      collect(problems, key, () => checkListQuery(LIST_SPECS[spec.list], parseListQuery(new URLSearchParams([[key, value]]))));
    }
    if (problems.length > 0) fail(problems);
    return parseListQuery(params);
  }
  const include: string[] = [];
  for (const [key, value] of params) {
    if (spec.kind === "include" && key === "include") {
      pushAll(include, value.split(",").map((s) => s.trim()).filter((s) => s.length > 0));
    } else {
      problems.push({ path: key, message: `unknown query parameter "${key}"` });
    }
  }
  if (problems.length > 0) fail(problems);
  // Include values are checked by the service, so the message matches local mode.
  return include.length > 0 ? { include } : undefined;
}
