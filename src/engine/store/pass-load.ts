import type { CompiledModel } from "../models/model-types.js";
import type { GroupJournal } from "../pipeline/group-journal.js";
import type { PassContribution, PassInput, PassMemory, PassRecord, PassRule, RecordState } from "../pipeline/types.js";
import { decodeConfidences, decodeValues, fieldIdsOf, storedKeys } from "./field-values-codec.js";
import { passCacheOf, type CachedContext, type StoredEvaluation, type StoredLink } from "./pass-cache.js";
import { MODEL_STAMP, parsedModel } from "./compiled-models.js";
import type { Sql } from "./sql.js";
import { definitionsStamp, groupBy, joinsRecords, storedState, type Keyed, type ModelRow } from "./pass-load-helpers.js";
import type { LoadedPass, LoadOptions, PassMode, StoredRecord } from "./pass-load-types.js";

export type { StoredEvaluation, StoredLink } from "./pass-cache.js";
export type { LoadedPass, LoadOptions, PassMode, StoredRecord } from "./pass-load-types.js";

/** Records a context may hold for a group's pass to read them all whatever the group wrote. */
const GROUP_PASS_FLOOR = 100;

type ContextRow = { key: number; id: string; name: string | null; type: string | null; metadata: string; ws: number; passId: number | null; stamp: string | null };
type RecordRow = Keyed & { key: number; id: string; modelId: string; identityKey: string | null; createdAt: string; sha256: string | null; issues: string | null; lineage: string | null; data?: string | null; dirty?: number | boolean; gone?: number | boolean };
type ContributionRow = Keyed & Omit<PassContribution, "data" | "confidences"> & { key: number; data: string; confidences: string | null };
type RemovalRow = Keyed & PassInput["removals"][number];
type LinkRow = Keyed & { s: number; n: string; t: number };
type EvaluationRow = Keyed & { key: number; ruleId: string; id: string; outcome: boolean | number; trace: string; v: number };
type RuleRow = { ws: number; key: number; id: string; name: string; version: number; stamp: string; expression: string; contextTypes: string };

/** A rule as the pass sees it, with the context types it applies to. */
interface CachedRule {
  stamp: string;
  rule: PassRule;
  contextTypes: string[];
}

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

/**
 * The SQL of a changed record: its evidence changed after the version the context's last
 * pass covered, or no pass has resolved it yet (UNRESOLVED_VERSION); records_changed
 * finds them without reading the context's other records.
 */
// (`> 0` lets the partial index serve it: passed versions are never negative.)
const DIRTY = "r.changed_version > 0 AND r.changed_version > x.passed_version";

/**
 * Reads everything the passes of some contexts need, for all of them at once: a few
 * statements per kind of row, in one read-only transaction (a consistent snapshot; on
 * PostgreSQL the statements of each step are pipelined). Contexts that no longer exist are
 * absent from the answer.
 */
export function loadPasses(db: Sql, contextKeys: readonly number[], options: LoadOptions = {}): Promise<Map<number, LoadedPass>> {
  if (contextKeys.length === 0) return Promise.resolve(new Map());
  // Inside a write group the group's own transaction is the snapshot.
  if (options.journal) return db.tx((tx) => load(tx, contextKeys, true, options.journal));
  return db.tx((tx) => load(tx, contextKeys, options.incremental ?? true, undefined), { readOnly: true });
}

async function load(tx: Sql, contextKeys: readonly number[], incremental: boolean, journal: GroupJournal | undefined): Promise<Map<number, LoadedPass>> {
  const d = tx.dialect;
  const keys = d.keyList(contextKeys);
  const inWorkspaces = `workspace_id IN (SELECT workspace_id FROM contexts WHERE ${d.inKeys("id")})`;
  // Rows the group inserted are not read back (SQLite's keys grow: they are the newest).
  const recordBound = journal?.firstRecordKey;
  const contributionBound = journal?.firstContributionKey;
  const beforeRecords = recordBound === undefined ? "" : " AND r.id < ?";
  const beforeContributions = contributionBound === undefined ? "" : " AND k.id < ?";
  const rb = recordBound === undefined ? [] : [recordBound];
  const cb = contributionBound === undefined ? [] : [contributionBound];
  // First what decides how each context is read: the context, the definitions, the rules.
  const [contexts, models, rules, removals] = await Promise.all([
    tx.all<ContextRow>(
      `SELECT id AS key, uuid AS id, name, type, metadata, workspace_id AS ws, pass_id AS "passId", pass_stamp AS stamp FROM contexts WHERE ${d.inKeys("id")}`,
      [keys],
    ),
    tx.all<ModelRow>(
      `SELECT m.workspace_id AS ws, m.id AS key, ${MODEL_STAMP} AS stamp, m.compiled FROM models m
       WHERE m.${inWorkspaces} AND m.deleted_at IS NULL AND m.compiled IS NOT NULL`,
      [keys],
    ),
    tx.all<RuleRow>(
      `SELECT workspace_id AS ws, id AS key, uuid AS id, name, version, version || ':' || updated_at AS stamp, expression, context_types AS "contextTypes"
       FROM rules WHERE ${inWorkspaces} AND status = 'active' AND deleted_at IS NULL`,
      [keys],
    ),
    tx.all<RemovalRow>(
      `SELECT x.context_id AS c, s.uuid AS "sourceRecordId", x.name, t.uuid AS "targetRecordId", x.source_identity AS "sourceIdentity",
         x.target_identity AS "targetIdentity"
       FROM relationship_removals x JOIN records s ON s.id = x.source_record_id JOIN records t ON t.id = x.target_record_id
       WHERE ${d.inKeys("x.context_id")}`,
      [keys],
    ),
  ]);

  const modelsOf = new Map<number, CompiledModel[]>();
  const modelRowsOf = new Map<number, ModelRow[]>();
  for (const m of models) {
    const ws = Number(m.ws);
    let list = modelsOf.get(ws);
    if (!list) modelsOf.set(ws, (list = []));
    list.push(parsedModel(tx, Number(m.key), m.stamp, m.compiled));
    let rows = modelRowsOf.get(ws);
    if (!rows) modelRowsOf.set(ws, (rows = []));
    rows.push(m);
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
    let list = rulesOf.get(ws);
    if (!list) rulesOf.set(ws, (list = []));
    list.push({ key, cached });
  }
  const stampOf = new Map<number, string>();
  for (const ws of new Set(contexts.map((c) => Number(c.ws)))) stampOf.set(ws, definitionsStamp(modelRowsOf.get(ws) ?? []));

  // Then each context's way of being read.
  const cache = passCacheOf(tx);
  const planned = contexts.map((ctx) => {
    const ws = Number(ctx.ws);
    const wsModels = modelsOf.get(ws) ?? [];
    const applying = (rulesOf.get(ws) ?? []).filter(({ cached }) => cached.contextTypes.length === 0 || (ctx.type !== null && cached.contextTypes.includes(ctx.type)));
    const stamp = stampOf.get(ws)!;
    const contextKey = Number(ctx.key);
    let mode: PassMode = "full";
    let warm: CachedContext | undefined;
    const same = ctx.stamp === stamp;
    if (!incremental) {
      // A dry run: every record from its contributions, the cache left as it is.
    } else if (applying.length === 0 && !joinsRecords(wsModels)) {
      // Record by record: the changed ones, or all of them under other definitions.
      mode = same ? "local" : "full";
      cache.drop(contextKey);
    } else if (!same) {
      cache.drop(contextKey);
    } else if ((warm = cache.take(contextKey, ctx.passId === null ? null : Number(ctx.passId), stamp))) {
      mode = "warm";
    } else {
      mode = "cold";
    }
    // Where records do not depend on each other no state is kept between passes.
    const keep = incremental && !(applying.length === 0 && !joinsRecords(wsModels));
    return { ctx, contextKey, ws, models: wsModels, applying, stamp, mode, warm, keep, written: journal?.get(contextKey) };
  });
  // A group's pass weighs what it would read of a context against what the group wrote into it.
  const weighed = journal ? planned.filter((p) => p.mode !== "local") : [];
  const sizes =
    weighed.length === 0
      ? []
      : await tx.all<{ c: number; n: number }>(
          `SELECT r.context_id AS c, COUNT(*) AS n FROM records r WHERE ${d.inKeys("r.context_id")} AND r.deleted_at IS NULL${beforeRecords} GROUP BY r.context_id`,
          [d.keyList(weighed.map((p) => p.contextKey)), ...rb],
        );
  const sizeOf = new Map(sizes.map((r) => [Number(r.c), Number(r.n)]));
  const plans = planned.filter((p) => {
    const size = sizeOf.get(p.contextKey) ?? 0;
    const defer = journal !== undefined && p.mode !== "local" && size > GROUP_PASS_FLOOR && (p.written?.touched.size ?? 0) * 4 < size;
    // Left for a later pass: its copy stays good until then.
    if (defer && p.warm) cache.put(p.contextKey, p.warm);
    return !defer;
  });
  const keysIn = (...modes: PassMode[]) => plans.filter((p) => modes.includes(p.mode)).map((p) => p.contextKey);
  const full = keysIn("full");
  const cold = keysIn("cold");
  const changedOnly = keysIn("warm", "local");
  const stored = keysIn("full", "cold", "local");
  const none = Promise.resolve([]);

  // Records the group created resolved and then gave more evidence: their first contributions are read back.
  const untold = plans.flatMap((p) => [...(p.written?.created.values() ?? [])].filter((r) => r.untold && !r.resolved).map((r) => r.key));
  const recordCols = `r.context_id AS c, r.id AS key, r.uuid AS id, m.uuid AS "modelId", r.identity_key AS "identityKey", r.created_at AS "createdAt",
    r.sha256, r.issues, r.lineage`;
  const contributionCols = `r.context_id AS c, k.id AS key, k.uuid AS id, r.uuid AS "recordId", m.uuid AS "modelId", k.source_id AS "sourceId", k.source_type AS "sourceType",
    k.data, k.field_confidences AS confidences, k.received_at AS "receivedAt", k.observed_at AS "observedAt"`;
  const [fullRecords, coldRecords, changedRecords, fullContributions, dirtyContributions, untoldContributions, links, evaluations] = await Promise.all([
    full.length === 0
      ? none
      : tx.all<RecordRow>(`SELECT ${recordCols} FROM records r JOIN models m ON m.id = r.model_id WHERE ${d.inKeys("r.context_id")} AND r.deleted_at IS NULL${beforeRecords}`, [
          d.keyList(full),
          ...rb,
        ]),
    cold.length === 0
      ? none
      : tx.all<RecordRow>(
          `SELECT ${recordCols}, r.data, CASE WHEN ${DIRTY} THEN 1 ELSE 0 END AS dirty
           FROM records r JOIN models m ON m.id = r.model_id JOIN contexts x ON x.id = r.context_id
           WHERE ${d.inKeys("r.context_id")} AND r.deleted_at IS NULL${beforeRecords}`,
          [d.keyList(cold), ...rb],
        ),
    // Changed records, and for a warm context those deleted since its last pass (its copy drops them).
    changedOnly.length === 0
      ? none
      : tx.all<RecordRow>(
          `SELECT ${recordCols}, CASE WHEN r.deleted_at IS NULL THEN 0 ELSE 1 END AS gone
           FROM contexts x JOIN records r ON r.context_id = x.id AND ${DIRTY} JOIN models m ON m.id = r.model_id
           WHERE ${d.inKeys("x.id")}${beforeRecords}`,
          [d.keyList(changedOnly), ...rb],
        ),
    full.length === 0
      ? none
      : tx.all<ContributionRow>(
          `SELECT ${contributionCols} FROM records r JOIN contributions k ON k.record_id = r.id JOIN models m ON m.id = r.model_id
           WHERE ${d.inKeys("r.context_id")} AND r.deleted_at IS NULL AND k.status = 'accepted'${beforeRecords}${beforeContributions}`,
          [d.keyList(full), ...rb, ...cb],
        ),
    cold.length + changedOnly.length === 0
      ? none
      : tx.all<ContributionRow>(
          `SELECT ${contributionCols} FROM contexts x JOIN records r ON r.context_id = x.id AND ${DIRTY} JOIN contributions k ON k.record_id = r.id JOIN models m ON m.id = r.model_id
           WHERE ${d.inKeys("x.id")} AND r.deleted_at IS NULL AND k.status = 'accepted'${beforeRecords}${beforeContributions}`,
          [d.keyList([...cold, ...changedOnly]), ...rb, ...cb],
        ),
    untold.length === 0
      ? none
      : tx.all<ContributionRow>(
          `SELECT ${contributionCols} FROM records r JOIN contributions k ON k.record_id = r.id JOIN models m ON m.id = r.model_id
           WHERE ${d.inKeys("r.id")} AND k.status = 'accepted'`,
          [d.keyList(untold)],
        ),
    stored.length === 0
      ? none
      : tx.all<LinkRow>(`SELECT context_id AS c, source_record_id AS s, name AS n, target_record_id AS t FROM relationships WHERE ${d.inKeys("context_id")}`, [
          d.keyList(stored),
        ]),
    stored.length === 0
      ? none
      : tx.all<EvaluationRow>(
          `SELECT e.context_id AS c, e.rule_id AS key, r.uuid AS "ruleId", e.uuid AS id, e.outcome, e.trace, e.rule_version AS v
           FROM evaluations e JOIN rules r ON r.id = e.rule_id WHERE ${d.inKeys("e.context_id")}`,
          [d.keyList(stored)],
        ),
  ]);
  // A group's supersessions the tables do not show yet (PostgreSQL holds them to its end).
  const gone = journal?.supersededBefore;
  const contributions = [...fullContributions, ...dirtyContributions, ...untoldContributions].filter((c) => !gone?.has(Number(c.key)));
  const fieldKeys = new Set<number>();
  for (const c of contributions) {
    storedKeys(c.data, fieldKeys);
    storedKeys(c.confidences, fieldKeys);
  }
  const fieldIds = await fieldIdsOf(tx, fieldKeys);

  const recordsOf = groupBy([...fullRecords, ...coldRecords, ...changedRecords]);
  const contributionsOf = groupBy(contributions);
  const removalsOf = groupBy(removals);
  const linksOf = groupBy(links);
  const evaluationsOf = groupBy(evaluations);
  const out = new Map<number, LoadedPass>();
  for (const plan of plans) {
    const { ctx, contextKey, mode, warm } = plan;
    const rows = recordsOf.get(contextKey) ?? [];
    const passRecord = (r: RecordRow): PassRecord => ({ id: r.id, modelId: r.modelId, identityKey: r.identityKey, createdAt: r.createdAt });
    const storedOf = (r: RecordRow): StoredRecord => ({ key: Number(r.key), sha256: r.sha256, issues: r.issues, lineage: r.lineage });
    const records = new Map<string, StoredRecord>();
    const passRecords: PassRecord[] = [];
    let dirty: Set<string> | undefined;
    let before: Map<string, RecordState> | undefined;
    let linksBefore: StoredLink[];
    let evaluationsBefore: Map<string, StoredEvaluation>;
    let memory: PassMemory | undefined;
    if (mode === "warm") {
      // The copy's records, less those deleted since, plus those changed since.
      dirty = new Set();
      before = new Map();
      const live = new Map(warm!.records);
      for (const r of rows) {
        live.delete(r.id);
        if (Number(r.gone)) continue;
        dirty.add(r.id);
        passRecords.push(passRecord(r));
        records.set(r.id, storedOf(r));
      }
      for (const [id, { key, state }] of live) {
        passRecords.push(state.record);
        before.set(id, state);
        records.set(id, { key, sha256: state.sha256, issues: state.issues, lineage: state.lineage });
      }
      linksBefore = warm!.links;
      evaluationsBefore = warm!.evaluations;
      memory = journal ? undefined : warm!.memory;
    } else {
      if (mode !== "full") dirty = new Set();
      if (mode === "cold") before = new Map();
      const modelsById = new Map(plan.models.map((m) => [m.modelId, m]));
      for (const r of rows) {
        // Deleted since the last pass: a local pass has nothing to do with them.
        if (Number(r.gone)) continue;
        const record = passRecord(r);
        passRecords.push(record);
        records.set(r.id, storedOf(r));
        if (mode === "local") dirty!.add(r.id);
        else if (mode === "cold") {
          const model = modelsById.get(r.modelId);
          if (Number(r.dirty) || !model || r.data === null || r.data === undefined) dirty!.add(r.id);
          else before!.set(r.id, storedState(record, model, r));
        }
      }
      linksBefore = (linksOf.get(contextKey) ?? []).map((l) => ({ sourceKey: Number(l.s), name: l.n, targetKey: Number(l.t) }));
      evaluationsBefore = new Map(
        (evaluationsOf.get(contextKey) ?? []).map((e) => [e.ruleId, { ruleKey: Number(e.key), id: e.id, outcome: Boolean(e.outcome), trace: e.trace, ruleVersion: Number(e.v) }]),
      );
    }
    const contributions = (contributionsOf.get(contextKey) ?? []).map((c) => {
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
    });
    // What the group wrote: its records as new (dirty) ones, its contributions beside those
    // read; but a record its writer resolved as it created it, with the definition this pass
    // runs, is clean: its state is the pass's (a local pass needs nothing of it at all).
    const written = plan.written;
    if (written) {
      const modelsById = new Map(plan.models.map((m) => [m.modelId, m]));
      const alone = new Set<string>();
      const readBack = new Set<string>();
      for (const { key, record, resolved, model, untold } of written.created.values()) {
        const clean = resolved !== undefined && model !== undefined && modelsById.get(record.modelId) === model;
        if (untold && !resolved) readBack.add(record.id);
        if (clean) alone.add(record.id);
        if (clean && mode === "local") continue;
        passRecords.push(record);
        records.set(record.id, clean ? { key, sha256: resolved.sha256, issues: resolved.issues, lineage: resolved.lineage } : { key, sha256: null, issues: null, lineage: null });
        if (clean) (before ??= new Map()).set(record.id, storedState(record, model, resolved));
      }
      // A full pass becomes one of every record but those.
      if (!dirty && alone.size > 0) dirty = new Set(passRecords.filter((r) => !alone.has(r.id)).map((r) => r.id));
      for (const { contribution } of written.accepted.values()) {
        // Those read back came with every accepted contribution the tables hold.
        if (alone.has(contribution.recordId) || readBack.has(contribution.recordId)) continue;
        contributions.push(contribution);
        // The group stamped the record it wrote to: it was read as changed, with its older evidence.
        if (before?.has(contribution.recordId)) throw new Error(`a record the write group changed was read as unchanged: ${contribution.recordId}`);
        dirty?.add(contribution.recordId);
      }
      if (dirty) for (const { record } of written.created.values()) if (!alone.has(record.id)) dirty.add(record.id);
    }
    out.set(contextKey, {
      contextKey,
      mode,
      keep: plan.keep,
      inGroup: journal !== undefined,
      stamp: plan.stamp,
      records,
      rules: new Map(plan.applying.map(({ key, cached }) => [cached.rule.id, key])),
      links: linksBefore,
      evaluations: evaluationsBefore,
      input: {
        context: { id: ctx.id, name: ctx.name, type: ctx.type, metadata: JSON.parse(ctx.metadata) as Record<string, unknown> },
        models: plan.models,
        records: passRecords,
        contributions,
        removals: (removalsOf.get(contextKey) ?? []).map((x) => ({
          sourceRecordId: x.sourceRecordId,
          name: x.name,
          targetRecordId: x.targetRecordId,
          sourceIdentity: x.sourceIdentity,
          targetIdentity: x.targetIdentity,
        })),
        rules: plan.applying.map(({ cached }) => cached.rule),
        ...(dirty ? { dirty } : {}),
        ...(before ? { before } : {}),
        ...(memory ? { memory } : {}),
      },
    });
  }
  return out;
}
