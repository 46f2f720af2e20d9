/** The `{param}` names of a route path, in order (`/records/{recordId}` → `["recordId"]`). */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
}
