/**
 * `-o name`: one `<kind>/<name-or-id>` line per resource, as kubectl prints them, so the
 * lines feed back into other commands. A resource's kind comes from its id property (the
 * REST bodies put it first: `modelId`, `contextId`, …).
 */

/** Kinds whose `name` finds them again; the others are named by id. */
const NAMED = new Set(["model", "context", "rule"]);

function nameOf(value: Record<string, unknown>): string | undefined {
  const idKey = Object.keys(value).find((k) => k.endsWith("Id") && typeof value[k] === "string");
  if (!idKey) return undefined;
  const kind = idKey.slice(0, -2);
  const name = value.name;
  return `${kind}/${NAMED.has(kind) && typeof name === "string" && name.length > 0 ? name : String(value[idKey])}`;
}

/** The resources of a body: a list envelope's array, a bulk answer's data, or the body itself. */
function resourcesOf(body: unknown): Record<string, unknown>[] {
  if (body === null || typeof body !== "object") return [];
  if (Array.isArray(body)) return body.filter((v): v is Record<string, unknown> => v !== null && typeof v === "object");
  const record = body as Record<string, unknown>;
  for (const key of ["data", "models", "items"]) {
    const list = record[key];
    if (Array.isArray(list)) return list.flatMap((item) => (key === "items" ? resourcesOf((item as { data?: unknown }).data) : resourcesOf([item])));
  }
  return [record];
}

/** The `-o name` lines of a REST body. */
export function resourceNames(body: unknown): string[] {
  return resourcesOf(body)
    .map(nameOf)
    .filter((n): n is string => n !== undefined);
}
