import { pathParams, ROUTES, type RouteSpec } from "../contract/routes.js";

/** A route matched on a raw path, with its path arguments in path order. */
export interface MatchedRoute {
  route: RouteSpec;
  /** The route template metrics and logs name it by (`/v1/contexts/{contextId}`). */
  template: string;
  args: string[];
}

interface Compiled {
  route: RouteSpec;
  pattern: RegExp;
  template: string;
  params: number;
}

const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

/** Every route of the table as a pattern over the raw `/v1/...` path, in table order. */
const COMPILED: Compiled[] = ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^/v1${escape(route.path).replace(/\{[^}]+\}/g, "([^/]+)")}$`),
  template: `/v1${route.path}`,
  params: pathParams(route.path).length,
}));

/** By method and first segment (`GET contexts`), in table order: the app's matching order. */
const BY_KEY = new Map<string, Compiled[]>();
for (const c of COMPILED) {
  const key = `${c.route.method} ${c.route.path.split("/")[1]}`;
  BY_KEY.set(key, [...(BY_KEY.get(key) ?? []), c]);
}

/**
 * The route of the table that answers `method` at `path` (a raw `/v1/...` path without a
 * query string), matched as the app's router matches it. The read lane routes with it, and
 * the 404/405 answers ask it which methods a path has.
 */
export function matchRoute(method: string, path: string): MatchedRoute | undefined {
  if (!path.startsWith("/v1/")) return undefined;
  const end = path.indexOf("/", 4);
  for (const c of BY_KEY.get(`${method} ${path.slice(4, end < 0 ? undefined : end)}`) ?? []) {
    const m = c.pattern.exec(path);
    if (m) return { route: c.route, template: c.template, args: m.slice(1, 1 + c.params) };
  }
  return undefined;
}

/** The methods some route of the table answers at `path`. */
export function routeMethodsAt(path: string): string[] {
  return [...new Set(COMPILED.filter((c) => c.pattern.test(path)).map((c) => c.route.method))];
}
