/**
 * `-o name`: one `<kind>/<name-or-id>` line per resource, as kubectl prints them, so the
 * lines feed back into other commands (every argument that takes a name or an id takes
 * `<kind>/<name>` and `<kind>/<id>` too). A resource's kind comes from its id property (the
 * REST bodies put it first: `modelId`, `contextId`, …).
 */

/** Kinds whose `name` finds them again; the others are named by id. */
const NAMED = new Set(["model", "context", "rule"]);

/** A resource as `-o name` prints it. */
export interface NamedResource {
  kind: string;
  id: string;
  /** Set for kinds found again by name (models, contexts, rules). */
  name: string | undefined;
}

function identify(value: Record<string, unknown>): NamedResource | undefined {
  const idKey = Object.keys(value).find((k) => k.endsWith("Id") && typeof value[k] === "string");
  if (!idKey) return undefined;
  const kind = idKey.slice(0, -2);
  const name = value.name;
  return { kind, id: String(value[idKey]), name: NAMED.has(kind) && typeof name === "string" && name.length > 0 ? name : undefined };
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

/** The resources of a REST body as `-o name` sees them: kind, id, and name where it finds them again. */
export function namedResources(body: unknown): NamedResource[] {
  return resourcesOf(body)
    .map(identify)
    .filter((n): n is NamedResource => n !== undefined);
}

/**
 * The `-o name` lines of resources. Context names need not be unique: a name two
 * resources of the output share, or one `shared` lists (`context/<name>` that other
 * contexts outside the output carry too), is printed as `<kind>/<id>`, so every line
 * names exactly one resource.
 */
export function nameLines(found: NamedResource[], shared: ReadonlySet<string> = new Set()): string[] {
  const count = new Map<string, number>();
  for (const n of found) if (n.name !== undefined) count.set(`${n.kind}/${n.name}`, (count.get(`${n.kind}/${n.name}`) ?? 0) + 1);
  return found.map((n) => {
    const byName = `${n.kind}/${n.name}`;
    return n.name !== undefined && count.get(byName) === 1 && !shared.has(byName) ? byName : `${n.kind}/${n.id}`;
  });
}
