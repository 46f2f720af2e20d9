import type { Context } from "hono";
import { DdsError } from "../contract/errors.js";
import { DOCS_PATHS } from "./docs.js";
import { errorResponse, methodNotAllowed } from "./problem.js";
import { routeMethodsAt } from "./route-table.js";

/** The pages outside the route table (the table's routes are in route-table.ts). */
interface Pattern {
  regex: RegExp;
  method: string;
}

const PATTERNS: Pattern[] = [
  { regex: /^\/healthz$/, method: "GET" },
  { regex: /^\/readyz$/, method: "GET" },
  { regex: /^\/v1\/openapi\.json$/, method: "GET" },
  ...DOCS_PATHS.map((regex) => ({ regex, method: "GET" })),
];

/** Methods some route answers at `path` (empty when no route has this path). */
export function allowedMethods(path: string): string[] {
  return [...new Set([...PATTERNS.filter((p) => p.regex.test(path)).map((p) => p.method), ...routeMethodsAt(path)])];
}

/** Unknown path: 404 problem; known path, wrong method: 405 problem with `Allow`. */
export function notFound(c: Context): Response {
  const allowed = allowedMethods(c.req.path);
  if (allowed.length > 0) return methodNotAllowed(c, allowed);
  return errorResponse(c, new DdsError("not_found", `no route ${c.req.method} ${c.req.path}; the API lives under /v1 (see /v1/openapi.json)`));
}
