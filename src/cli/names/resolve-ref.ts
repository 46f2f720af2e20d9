import { errors } from "../../contract/errors.js";
import type { FilterClause, ListQuery } from "../../contract/list-query.js";
import type { DdsService } from "../../contract/service.js";
import { isUuid } from "../../util/uuid-shape.js";

/** The kinds of resource the command line names: by id, or by name (a webhook by its URL). */
export type RefKind = "context" | "model" | "rule" | "webhook";

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
 * The one resolver of names on the command line. A UUID is taken as an id; anything else
 * is looked up by name (a webhook by URL). No match is a 404 (exit 4); several matches are
 * a usage error (exit 2) listing the candidates, so the user can pick one by id.
 */
export async function resolveRef(service: DdsService, kind: RefKind, ref: string): Promise<string> {
  if (isUuid(ref)) return ref.toLowerCase();
  const found = await candidates(service, kind, ref);
  if (found.length === 0) throw errors.notFound(kind, ref);
  if (found.length === 1) return found[0].id;
  const more = found.length > SHOWN ? `, and more` : "";
  const list = found.slice(0, SHOWN).map((c) => c.label).join("; ");
  throw errors.usage(`several ${kind}s are named "${ref}": ${list}${more}; give the ${kind}Id instead`);
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
