import type { CompiledModel } from "../models/model-types.js";
import type { PassInput, PassRule } from "../pipeline/types.js";
import { decodeConfidences, decodeValues, fieldIdsOf, storedKeys } from "./field-values-codec.js";
import type { Sql } from "./sql.js";

/** What a record held before the pass: the pass writes only the records it changes. */
export interface StoredRecord {
  key: number;
  sha256: string | null;
  issues: string | null;
  lineage: string | null;
}

/** A link of the context before the pass, by record keys. */
export interface StoredLink {
  id: number;
  sourceKey: number;
  name: string;
  targetKey: number;
}

/** An evaluation of the context before the pass. */
export interface StoredEvaluation {
  ruleKey: number;
  id: string;
  outcome: boolean;
  trace: string;
  ruleVersion: number;
}

/**
 * A pass's input and what the store holds of its output already: the keys of what the
 * input names (the pure stages see only ids), and the records, links and evaluations as
 * they are, so the commit writes only what the pass changed.
 */
export interface LoadedPass {
  input: PassInput;
  contextKey: number;
  records: Map<string, StoredRecord>;
  /** The keys of the rules that apply, by rule id. */
  rules: Map<string, number>;
  links: StoredLink[];
  /** By rule id. */
  evaluations: Map<string, StoredEvaluation>;
}

type Keyed = { c: number };
type RecordRow = Keyed & PassInput["records"][number] & StoredRecord;
type ContributionRow = Keyed & Omit<PassInput["contributions"][number], "data" | "confidences"> & { data: string; confidences: string | null };
type RemovalRow = Keyed & PassInput["removals"][number];
type LinkRow = Keyed & { id: number; s: number; n: string; t: number };
type EvaluationRow = Keyed & { key: number; ruleId: string; id: string; outcome: boolean | number; trace: string; v: number };
type ModelRow = { ws: number; key: number; stamp: string; compiled: string };
type RuleRow = { ws: number; key: number; id: string; name: string; version: number; stamp: string; expression: string; contextTypes: string };

/** A rule as the pass sees it, with the context types it applies to. */
interface CachedRule {
  stamp: string;
  rule: PassRule;
  contextTypes: string[];
}

const MODELS_MEMO = "pass-models";
const RULES_MEMO = "pass-rules";

/**
 * Parsed definitions kept for the store's life, each by its key and change stamp (version
 * and update time): a definition that did not change is not parsed again, and the same
 * object reaches every pass, so the expression cache knows it without stringifying it.
 */
function parsedOnce<T>(db: Sql, memo: string): Map<number, { stamp: string; value: T }> {
  let map = db.memo.get(memo) as Map<number, { stamp: string; value: T }> | undefined;
  if (!map) db.memo.set(memo, (map = new Map()));
  return map;
}

const groupBy = <T extends Keyed>(rows: T[]): Map<number, T[]> => {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const c = Number(r.c);
    let list = out.get(c);
    if (!list) out.set(c, (list = []));
    list.push(r);
  }
  return out;
};

/**
 * Reads everything the passes of some contexts need, for all of them at once: one
 * statement per kind of row, issued together in one read-only transaction (a consistent
 * snapshot; on PostgreSQL the statements are pipelined, one round trip for the batch).
 * Contexts that no longer exist are absent from the answer.
 */
export function loadPasses(db: Sql, contextKeys: readonly number[]): Promise<Map<number, LoadedPass>> {
  if (contextKeys.length === 0) return Promise.resolve(new Map());
  return db.tx((tx) => load(tx, contextKeys), { readOnly: true });
}

async function load(tx: Sql, contextKeys: readonly number[]): Promise<Map<number, LoadedPass>> {
  const d = tx.dialect;
  const keys = d.keyList(contextKeys);
  const inWorkspaces = `workspace_id IN (SELECT workspace_id FROM contexts WHERE ${d.inKeys("id")})`;
  const [contexts, records, contributions, removals, links, evaluations, models, rules] = await Promise.all([
    tx.all<{ key: number; id: string; name: string | null; type: string | null; metadata: string; ws: number }>(
      `SELECT id AS key, uuid AS id, name, type, metadata, workspace_id AS ws FROM contexts WHERE ${d.inKeys("id")}`,
      [keys],
    ),
    tx.all<RecordRow>(
      `SELECT r.context_id AS c, r.id AS key, r.uuid AS id, m.uuid AS "modelId", r.identity_key AS "identityKey", r.created_at AS "createdAt",
         r.sha256, r.issues, r.lineage
       FROM records r JOIN models m ON m.id = r.model_id WHERE ${d.inKeys("r.context_id")} AND r.deleted_at IS NULL`,
      [keys],
    ),
    tx.all<ContributionRow>(
      `SELECT r.context_id AS c, k.uuid AS id, r.uuid AS "recordId", m.uuid AS "modelId", k.source_id AS "sourceId", k.source_type AS "sourceType",
         k.data, k.field_confidences AS confidences, k.received_at AS "receivedAt", k.observed_at AS "observedAt"
       FROM records r JOIN contributions k ON k.record_id = r.id JOIN models m ON m.id = r.model_id
       WHERE ${d.inKeys("r.context_id")} AND r.deleted_at IS NULL AND k.status = 'accepted'`,
      [keys],
    ),
    tx.all<RemovalRow>(
      `SELECT x.context_id AS c, s.uuid AS "sourceRecordId", x.name, t.uuid AS "targetRecordId", x.source_identity AS "sourceIdentity",
         x.target_identity AS "targetIdentity"
       FROM relationship_removals x JOIN records s ON s.id = x.source_record_id JOIN records t ON t.id = x.target_record_id
       WHERE ${d.inKeys("x.context_id")}`,
      [keys],
    ),
    tx.all<LinkRow>(`SELECT context_id AS c, id, source_record_id AS s, name AS n, target_record_id AS t FROM relationships WHERE ${d.inKeys("context_id")}`, [keys]),
    tx.all<EvaluationRow>(
      `SELECT e.context_id AS c, e.rule_id AS key, r.uuid AS "ruleId", e.uuid AS id, e.outcome, e.trace, e.rule_version AS v
       FROM evaluations e JOIN rules r ON r.id = e.rule_id WHERE ${d.inKeys("e.context_id")}`,
      [keys],
    ),
    tx.all<ModelRow>(
      `SELECT workspace_id AS ws, id AS key, version || ':' || updated_at AS stamp, compiled FROM models
       WHERE ${inWorkspaces} AND deleted_at IS NULL AND compiled IS NOT NULL`,
      [keys],
    ),
    tx.all<RuleRow>(
      `SELECT workspace_id AS ws, id AS key, uuid AS id, name, version, version || ':' || updated_at AS stamp, expression, context_types AS "contextTypes"
       FROM rules WHERE ${inWorkspaces} AND status = 'active' AND deleted_at IS NULL`,
      [keys],
    ),
  ]);
  const fieldKeys = new Set<number>();
  for (const c of contributions) {
    storedKeys(c.data, fieldKeys);
    storedKeys(c.confidences, fieldKeys);
  }
  const fieldIds = await fieldIdsOf(tx, fieldKeys);

  const modelCache = parsedOnce<CompiledModel>(tx, MODELS_MEMO);
  const modelsOf = new Map<number, CompiledModel[]>();
  for (const m of models) {
    const key = Number(m.key);
    let cached = modelCache.get(key);
    if (cached?.stamp !== m.stamp) modelCache.set(key, (cached = { stamp: m.stamp, value: JSON.parse(m.compiled) as CompiledModel }));
    const ws = Number(m.ws);
    modelsOf.set(ws, [...(modelsOf.get(ws) ?? []), cached.value]);
  }
  const ruleCache = parsedOnce<CachedRule>(tx, RULES_MEMO);
  const rulesOf = new Map<number, { key: number; cached: CachedRule }[]>();
  for (const r of rules) {
    const key = Number(r.key);
    let cached = ruleCache.get(key)?.value;
    if (cached?.stamp !== r.stamp) {
      cached = {
        stamp: r.stamp,
        rule: { id: r.id, name: r.name, version: Number(r.version), expression: JSON.parse(r.expression) as unknown },
        contextTypes: JSON.parse(r.contextTypes) as string[],
      };
      ruleCache.set(key, { stamp: r.stamp, value: cached });
    }
    const ws = Number(r.ws);
    rulesOf.set(ws, [...(rulesOf.get(ws) ?? []), { key, cached }]);
  }

  const recordsOf = groupBy(records);
  const contributionsOf = groupBy(contributions);
  const removalsOf = groupBy(removals);
  const linksOf = groupBy(links);
  const evaluationsOf = groupBy(evaluations);
  const out = new Map<number, LoadedPass>();
  for (const ctx of contexts) {
    const contextKey = Number(ctx.key);
    const own = recordsOf.get(contextKey) ?? [];
    const applying = (rulesOf.get(Number(ctx.ws)) ?? []).filter(({ cached }) => cached.contextTypes.length === 0 || (ctx.type !== null && cached.contextTypes.includes(ctx.type)));
    out.set(contextKey, {
      contextKey,
      records: new Map(own.map((r) => [r.id, { key: Number(r.key), sha256: r.sha256, issues: r.issues, lineage: r.lineage }])),
      rules: new Map(applying.map(({ key, cached }) => [cached.rule.id, key])),
      links: (linksOf.get(contextKey) ?? []).map((l) => ({ id: Number(l.id), sourceKey: Number(l.s), name: l.n, targetKey: Number(l.t) })),
      evaluations: new Map(
        (evaluationsOf.get(contextKey) ?? []).map((e) => [
          e.ruleId,
          { ruleKey: Number(e.key), id: e.id, outcome: Boolean(e.outcome), trace: e.trace, ruleVersion: Number(e.v) },
        ]),
      ),
      input: {
        context: { id: ctx.id, name: ctx.name, type: ctx.type, metadata: JSON.parse(ctx.metadata) as Record<string, unknown> },
        models: modelsOf.get(Number(ctx.ws)) ?? [],
        records: own.map((r) => ({ id: r.id, modelId: r.modelId, identityKey: r.identityKey, createdAt: r.createdAt })),
        contributions: (contributionsOf.get(contextKey) ?? []).map((c) => {
          const data = decodeValues(c.data, fieldIds);
          return {
            id: c.id,
            recordId: c.recordId,
            modelId: c.modelId,
            sourceId: c.sourceId,
            sourceType: c.sourceType,
            data,
            confidences: decodeConfidences(c.confidences, data, fieldIds),
            receivedAt: c.receivedAt,
            observedAt: c.observedAt,
          };
        }),
        removals: (removalsOf.get(contextKey) ?? []).map((x) => ({
          sourceRecordId: x.sourceRecordId,
          name: x.name,
          targetRecordId: x.targetRecordId,
          sourceIdentity: x.sourceIdentity,
          targetIdentity: x.targetIdentity,
        })),
        rules: applying.map(({ cached }) => cached.rule),
      },
    });
  }
  return out;
}
