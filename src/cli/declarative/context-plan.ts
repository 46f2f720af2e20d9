import type { ProblemDetail } from "../../contract/errors.js";
import type { Context, Contribution } from "../../contract/schemas/index.js";
import { statusCommands } from "../common/lifecycle-hints.js";
import { canonicalJson, sameJson } from "./canonical.js";
import type { ContextDocument, ContributionDocument, LoadedDocument } from "./document-schema.js";
import type { ContextSteps, PendingContribution, PlanChange } from "./plan-types.js";

/** What apply knows about a model when it matches contributions: its id (if stored) and identity. */
export interface ModelFacts {
  modelId?: string;
  identity: string[];
}

/**
 * What makes two contributions "the same evidence": model, source, data, the confidence
 * of every field (1 when not given, as the service stores it) and observedAt.
 */
function evidenceKey(modelId: string, c: Pick<Contribution, "sourceId" | "sourceType" | "data"> & { fieldConfidences?: Record<string, number>; observedAt?: string | null }): string {
  const confidences: Record<string, number> = {};
  for (const name of Object.keys(c.data)) confidences[name] = c.fieldConfidences?.[name] ?? 1;
  return canonicalJson([modelId, c.sourceId, c.sourceType, c.data, confidences, c.observedAt ?? null]);
}

/** Contributions of one source to one record supersede each other: this names that group. */
function groupKey(model: string, facts: ModelFacts | undefined, c: ContributionDocument): string {
  const identity = (facts?.identity ?? []).map((name) => c.data[name] ?? null);
  return canonicalJson([model, c.sourceId, identity]);
}

/**
 * Which of a document's contributions the context does not hold yet. Each stored
 * contribution matches at most one document contribution (so a source that sent the same
 * value twice is counted twice). A matched contribution that has since been superseded
 * is added again when it is the document's last word for its source and record: the
 * document says that value should be the current one.
 */
export function missingContributions(doc: ContextDocument, stored: Contribution[], models: Map<string, ModelFacts>): PendingContribution[] {
  const pool = new Map<string, Contribution[]>();
  for (const c of stored) {
    const key = evidenceKey(c.modelId, c);
    let bucket = pool.get(key);
    if (!bucket) pool.set(key, (bucket = []));
    bucket.push(c);
  }
  const list = doc.contributions ?? [];
  const lastOfGroup = new Map<string, number>();
  list.forEach((c, i) => lastOfGroup.set(groupKey(c.model, models.get(c.model), c), i));
  const add: PendingContribution[] = [];
  list.forEach((c, index) => {
    const facts = models.get(c.model);
    const candidates = facts?.modelId ? pool.get(evidenceKey(facts.modelId, c)) : undefined;
    // Prefer an accepted match so a superseded duplicate is not what decides.
    const at = candidates ? Math.max(candidates.findIndex((s) => s.status === "accepted"), 0) : -1;
    const match = candidates && candidates.length > 0 ? candidates.splice(at, 1)[0] : undefined;
    const isLast = lastOfGroup.get(groupKey(c.model, facts, c)) === index;
    if (match && (match.status === "accepted" || !isLast)) return;
    const { model, ...rest } = c;
    add.push({ ...rest, model, index });
  });
  return add;
}

/**
 * Plans one Context document: create it (by name) or PATCH type and metadata to the
 * document's (an absent type or metadata means none), and add the contributions it
 * does not hold yet. Evidence into a completed or archived context is a conflict.
 */
export function planContext(
  loaded: LoadedDocument<ContextDocument>,
  existing: Context | undefined,
  stored: Contribution[],
  models: Map<string, ModelFacts>,
  conflicts: ProblemDetail[],
): ContextSteps {
  const { doc, source } = loaded;
  const changes: PlanChange[] = [];
  const add = missingContributions(doc, stored, models);
  const steps: ContextSteps = { doc, create: !existing, add, item: { kind: "Context", name: doc.name, source, action: "create", changes } };
  steps.item.contributions = { add: add.length, present: (doc.contributions?.length ?? 0) - add.length };
  if (!existing) return steps;
  steps.item.id = existing.contextId;
  const type = doc.type ?? null;
  const metadata = doc.metadata ?? {};
  const patch: NonNullable<ContextSteps["patch"]> = {};
  if (type !== existing.type) {
    patch.type = type;
    changes.push({ path: "type", op: "change", from: existing.type, to: type });
  }
  if (!sameJson(metadata, existing.metadata)) {
    patch.metadata = metadata;
    changes.push({ path: "metadata", op: "change", from: existing.metadata, to: metadata });
  }
  if (Object.keys(patch).length > 0) steps.patch = patch;
  if (add.length > 0) {
    changes.push({ path: "contributions", op: "add", to: add.length });
    if (existing.status !== "active") {
      conflicts.push({
        path: `${source}: Context ${doc.name}`,
        message: `the context is ${existing.status} and takes no evidence; ${reopenText(doc.name, existing.status)}`,
      });
    }
  }
  steps.item.action = changes.length > 0 ? "update" : "unchanged";
  return steps;
}

/** How a context that takes no evidence would take it again: reopened, unless archived for good. */
function reopenText(name: string, status: string): string {
  const reopen = statusCommands("context", name, status, "active");
  return reopen ? `reopen it first (${reopen})` : `${status} contexts are permanent: drop the contributions or name another context`;
}
