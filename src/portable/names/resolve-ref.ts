import { errors } from "../../contract/errors.js";
import type { FilterClause, ListQuery } from "../../contract/list-query.js";
import type { DdsService } from "../../contract/service.js";
import { isUuid } from "./uuid-shape.js";

/** The kinds of resource the command line names: by id, or by name (a webhook by its URL). */
export type RefKind = "context" | "model" | "rule" | "webhook";

/** The kinds named by id only. */
export type IdKind = "record" | "field" | "contribution" | "token";

/** The kinds `-o name` prints by id: named by id on the command line too. */
const BY_ID: ReadonlySet<string> = new Set<string>(["record", "field", "contribution", "token", "evaluation", "delivery"]);

/** Every kind `-o name` prints (`<kind>/<name-or-id>`), so every such line reads back. */
const KINDS: ReadonlySet<string> = new Set<string>(["model", "context", "rule", "webhook", ...BY_ID]);

/**
 * `ref` without a `<kind>/` prefix (what `-o name` prints: `context/case-42`,
 * `record/<id>`). A prefix of another kind is a usage error; anything else (a name with a
 * slash in it, a webhook URL) is taken as it is.
 */
export function bareRef(kind: RefKind | IdKind, ref: string): string {
  const m = /^([a-z]+)\/(.*)$/s.exec(ref);
  if (!m || !KINDS.has(m[1])) return ref;
  if (m[1] !== kind) throw errors.usage(`${ref} names a ${m[1]}, where a ${kind} is expected`);
  if (m[2] === "") throw errors.usage(`${ref}: give the ${kind}'s ${BY_ID.has(kind) ? "id" : "name or id"} after ${kind}/`);
  return m[2];
}

/** The id of a resource named by id only, given as `<id>` or `<kind>/<id>`. */
export function idRef(kind: IdKind, ref: string): string {
  return bareRef(kind, ref);
}

interface Candidate {
  id: string;
  label: string;
}

/** Candidates are listed up to this many in an ambiguity error. */
const SHOWN = 10;

async function candidates(service: DdsService, kind: RefKind, name: string): Promise<Candidate[]> {
  const eq = (field: string): ListQuery => ({ filters: [{ field, op: "eq", value: name } satisfies FilterClause], limit: SHOWN + 1 });
  switch (kind) {
    case "model":
      return (await service.listModels(eq("name"))).models.map((m) => ({ id: m.modelId, label: `${m.modelId} (${m.status})` }));
    case "context":
      return (await service.listContexts(eq("name"))).data.map((c) => ({ id: c.contextId, label: `${c.contextId} (${c.status}, created ${c.createdAt})` }));
    case "rule":
      return (await service.listRules(eq("name"))).data.map((r) => ({ id: r.ruleId, label: `${r.ruleId} (${r.status})` }));
    case "webhook":
      return (await service.listWebhooks(eq("url"))).data.map((w) => ({ id: w.webhookId, label: `${w.webhookId} (${w.events.join(",")})` }));
  }
}

/**
 * The one resolver of names on the command line. `<kind>/` in front is dropped (so what
 * `-o name` prints reads back); a UUID is taken as an id; anything else is looked up by
 * name (a webhook by URL). No match is a 404 (exit 4); several matches are
 * a usage error (exit 2) listing the candidates, so the user can pick one by id.
 */
export async function resolveRef(service: DdsService, kind: RefKind, given: string): Promise<string> {
  const ref = bareRef(kind, given);
  if (isUuid(ref)) return ref.toLowerCase();
  const found = await candidates(service, kind, ref);
  if (found.length === 0) throw errors.notFound(kind, ref);
  if (found.length === 1) return found[0].id;
  const more = found.length > SHOWN ? `, and more` : "";
  const list = found.slice(0, SHOWN).map((c) => c.label).join("; ");
  throw errors.usage(`several ${kind}s are named "${ref}": ${list}${more}; give the ${kind}Id instead`);
}

/**
 * How to show a resource the user named: the name as they typed it (without a `<kind>/`
 * prefix) with its id, or the id alone when they typed the id.
 */
export function refLabel(kind: RefKind, given: string, id: string): string {
  const ref = bareRef(kind, given);
  return isUuid(ref) ? id : `${ref} (${id})`;
}

/**
 * Resolves the refs of a variadic argument (`wait a b`) and keeps, per id, the word the
 * user typed for it, so results are reported in the user's words.
 */
export async function resolveRefs(service: DdsService, kind: RefKind, refs: string[]): Promise<{ ids: string[]; typed: Map<string, string> }> {
  const ids = await Promise.all(refs.map(refCache(service, kind)));
  const typed = new Map<string, string>();
  ids.forEach((id, i) => {
    if (!typed.has(id)) typed.set(id, refs[i]);
  });
  return { ids, typed };
}

/** Resolves refs of one kind once each (a bulk file naming the same context many times). */
export function refCache(service: DdsService, kind: RefKind): (ref: string) => Promise<string> {
  const cache = new Map<string, Promise<string>>();
  return (ref) => {
    let id = cache.get(ref);
    if (!id) cache.set(ref, (id = resolveRef(service, kind, ref)));
    return id;
  };
}

/**
 * The filter clauses of `--context` and `--model` on a list, each resolved from a name or
 * an id (a name that matches nothing is a 404, never an empty list).
 */
export async function scopeFilters(service: DdsService, scope: { context?: string; model?: string }): Promise<FilterClause[]> {
  const clauses: FilterClause[] = [];
  if (scope.context) clauses.push({ field: "contextId", op: "eq", value: await resolveRef(service, "context", scope.context) });
  if (scope.model) clauses.push({ field: "modelId", op: "eq", value: await resolveRef(service, "model", scope.model) });
  return clauses;
}

/** Names asked about in one list request (`name[in]=a,b,…`). */
const NAMES_PER_QUERY = 50;

/**
 * Which of these context names more than one context carries, in one list request per
 * {@link NAMES_PER_QUERY} names (a name with a comma, which `in` would split, on its own).
 */
export async function sharedContextNames(service: DdsService, names: string[]): Promise<Set<string>> {
  const count = new Map<string, number>();
  const queries: FilterClause[] = names.filter((n) => n.includes(",")).map((value) => ({ field: "name", op: "eq", value }));
  const plain = names.filter((n) => !n.includes(","));
  for (let i = 0; i < plain.length; i += NAMES_PER_QUERY) queries.push({ field: "name", op: "in", value: plain.slice(i, i + NAMES_PER_QUERY).join(",") });
  for (const clause of queries) {
    let cursor: string | undefined;
    do {
      const page = await service.listContexts({ filters: [clause], limit: 500, ...(cursor ? { cursor } : {}) });
      for (const c of page.data) if (c.name !== null) count.set(c.name, (count.get(c.name) ?? 0) + 1);
      cursor = page.hasNextPage && page.nextCursor ? page.nextCursor : undefined;
    } while (cursor);
  }
  return new Set([...count].filter(([, n]) => n > 1).map(([name]) => name));
}
