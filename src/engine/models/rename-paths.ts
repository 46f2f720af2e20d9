const SCOPED = new Set(["map", "filter", "reduce", "all", "some", "none"]);

/**
 * Returns a copy of a JSON Logic expression with every static `var` path passed through
 * `rewrite`. Arguments evaluated per element (the 2nd of map/filter/all/…) are left alone:
 * their paths are relative to the element, not to the record.
 */
export function rewriteVarPaths(expr: unknown, rewrite: (path: string) => string): unknown {
  if (Array.isArray(expr)) return expr.map((e) => rewriteVarPaths(e, rewrite));
  if (expr === null || typeof expr !== "object") return expr;
  const keys = Object.keys(expr);
  if (keys.length !== 1) return expr;
  const op = keys[0];
  const arg = (expr as Record<string, unknown>)[op];
  if (op === "var") {
    if (typeof arg === "string") return { var: rewrite(arg) };
    if (Array.isArray(arg) && typeof arg[0] === "string") return { var: [rewrite(arg[0]), ...arg.slice(1)] };
    return { var: rewriteVarPaths(arg, rewrite) };
  }
  if (SCOPED.has(op) && Array.isArray(arg)) {
    return { [op]: [rewriteVarPaths(arg[0], rewrite), ...arg.slice(1)] };
  }
  return { [op]: rewriteVarPaths(arg, rewrite) };
}

/** Rewrites `old` to `next` as the segment at `index` of a dotted path, when the prefix matches. */
export function renameSegment(path: string, prefix: string[], old: string, next: string): string {
  const parts = path.split(".");
  if (parts.length <= prefix.length) return path;
  for (let i = 0; i < prefix.length; i++) if (parts[i] !== prefix[i]) return path;
  if (parts[prefix.length] !== old) return path;
  parts[prefix.length] = next;
  return parts.join(".");
}
