import type { CompiledModel } from "../models/model-types.js";
import type { PassInput, PassOutput } from "../pipeline/types.js";
import { newId } from "../../util/ids.js";
import { decodeConfidences, decodeValues, fieldIdsOf, storedKeys } from "./field-values-codec.js";
import { encodeLineage } from "./lineage-codec.js";
import { forgetGroupState, type Sql } from "./sql.js";
import { WORKSPACE } from "./workspace-sql.js";

/**
 * A claim on a context: who holds it, its fencing token, and which evidence version the
 * pass saw. Every claim of a context takes a new token; a pass commits only while the
 * context still carries its token, so a pass whose lease ran out and was taken over can
 * never commit late.
 */
export interface Claim {
  contextKey: number;
  contextId: string;
  workspace: string;
  evidenceVersion: number;
  worker: string;
  token: number;
  /** The context was computing under a lease that had run out: another worker's claim, taken over. */
  takenOver: boolean;
}

/** Which contexts a claim may take. */
export interface ClaimScope {
  workspace?: string;
  only?: string[];
}

/** Called inside a pass's commit transaction with the outcomes that flipped and the context's freshness after it. */
export type OnCommitted = (tx: Sql, changedOutcomes: { ruleId: string; outcome: boolean }[], freshness: "resolved" | "stale") => Promise<void>;

/** What a record held before the pass: the pass writes only the records it changes. */
interface StoredRecord {
  key: number;
  sha256: string | null;
  issues: string | null;
  lineage: string | null;
}

/** A pass's input and the store's keys of what it names (the pure stages see only ids). */
export interface LoadedPass {
  input: PassInput;
  contextKey: number;
  records: Map<string, StoredRecord>;
  rules: Map<string, number>;
}

const list = (n: number) => Array(n).fill("?").join(",");

/**
 * The pipeline's persistence: claiming contexts atomically with a lease, loading a pass's
 * input and committing its output. Not workspace-scoped: the worker serves every
 * workspace of the database.
 */
export function createPipelineRepo(db: Sql) {
  const d = db.dialect;
  return {
    /** Keys of the live contexts holding live records of any of these models. */
    async contextsWithModels(modelIds: string[]): Promise<number[]> {
      if (modelIds.length === 0) return [];
      // Each context probed through the identity index (context, model, …): no index leads records by model.
      const rows = await db.all<{ id: number }>(
        `SELECT c.id FROM contexts c WHERE c.deleted_at IS NULL AND EXISTS (SELECT 1 FROM records r WHERE r.context_id = c.id
           AND r.model_id IN (SELECT id FROM models WHERE uuid IN (${list(modelIds.length)})) AND r.deleted_at IS NULL)`,
        modelIds.map((id) => d.uuid(id)),
      );
      return rows.map((r) => Number(r.id));
    },
    /** Keys of every non-archived, live context of a workspace (rule changes reach them all). */
    async contextsOfWorkspace(workspace: string): Promise<number[]> {
      const rows = await db.all<{ id: number }>(`SELECT id FROM contexts WHERE workspace_id = ${WORKSPACE} AND deleted_at IS NULL AND status != 'archived'`, [workspace]);
      return rows.map((r) => Number(r.id));
    },
    /**
     * Claims one processable context: stale and active, or computing with an expired
     * lease (its worker died). Atomic: one UPDATE; on PostgreSQL the candidate row is
     * locked with SKIP LOCKED, so workers on other nodes take other contexts at once.
     */
    async claim(worker: string, leaseMs: number, scope: ClaimScope = {}): Promise<Claim | undefined> {
      const now = Date.now();
      const lease = now + leaseMs;
      const only = scope.only;
      const filter = `${scope.workspace ? `AND workspace_id = ${WORKSPACE}` : ""} ${only ? `AND uuid IN (${list(only.length)})` : ""}`;
      // A take-over (a computing context whose lease ran out) gets a lease 1 ms longer: RETURNING
      // sees only the new row (and SQLite's cannot read another table of an UPDATE ... FROM), so
      // this is how one statement tells a take-over from a claim of a stale context.
      const row = await db.get<{ key: number; id: string; workspace: string; evidenceVersion: number; token: number; lease: number }>(
        `UPDATE contexts SET freshness = 'computing', claimed_by = ?,
           lease_expires_at = CASE WHEN freshness = 'computing' THEN ${d.timePlusMs("?", 1)} ELSE ? END, claim_token = claim_token + 1
         WHERE id = (SELECT id FROM contexts WHERE deleted_at IS NULL AND status = 'active'
           AND (freshness = 'stale' OR (freshness = 'computing' AND (lease_expires_at IS NULL OR lease_expires_at < ?))) ${filter}
           ORDER BY evidence_version - resolved_version DESC, id LIMIT 1 ${d.skipLocked})
         RETURNING id AS key, uuid AS id, (SELECT name FROM workspaces w WHERE w.id = contexts.workspace_id) AS workspace,
           evidence_version AS "evidenceVersion", claim_token AS token, ${d.epochMs("lease_expires_at")} AS lease`,
        [worker, d.time(lease), d.time(lease), d.time(now), ...(scope.workspace ? [scope.workspace] : []), ...(only ?? []).map((id) => d.uuid(id))],
      );
      if (row) forgetGroupState(db);
      return row
        ? {
            contextKey: Number(row.key),
            contextId: row.id,
            workspace: row.workspace,
            evidenceVersion: Number(row.evidenceVersion),
            worker,
            token: Number(row.token),
            takenOver: Number(row.lease) > lease,
          }
        : undefined;
    },
    /** Extends a live claim's lease (a heartbeat); false when the claim was lost. */
    async extend(claim: Claim, leaseMs: number): Promise<boolean> {
      const changed = await db.run("UPDATE contexts SET lease_expires_at = ? WHERE id = ? AND claim_token = ? AND claimed_by = ? AND freshness = 'computing'", [
        d.time(Date.now() + leaseMs),
        claim.contextKey,
        claim.token,
        claim.worker,
      ]);
      return changed === 1;
    },
    /** The earliest lease end among contexts being computed, in epoch milliseconds, if any (when a dead worker's claim comes free). */
    async nextLeaseExpiry(): Promise<number | undefined> {
      const row = await db.get<{ at: number | null }>(`SELECT ${d.epochMs("MIN(lease_expires_at)")} AS at FROM contexts WHERE freshness = 'computing' AND deleted_at IS NULL`);
      return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
    },
    /** Reads everything a pass needs, in one read-only transaction (a consistent snapshot). */
    loadPassInput(claim: Claim): Promise<LoadedPass | undefined> {
      return this.loadContextInput(claim.contextKey);
    },
    /** The pass input of any context (no claim needed: dry-run evaluations read it too). */
    loadContextInput(contextKey: number): Promise<LoadedPass | undefined> {
      return db.tx((tx) => loadInput(tx, contextKey), { readOnly: true });
    },
    /**
     * Commits a pass in one transaction: records, links, evaluations, then freshness. If
     * the claim was lost (its token is no longer the context's: the lease expired and
     * another worker took it) nothing is written. If evidence arrived meanwhile, the
     * context ends stale so it is claimed again. Returns the final freshness, or undefined
     * when the claim was lost.
     */
    commitPass(claim: Claim, loaded: LoadedPass, output: PassOutput, onCommitted?: OnCommitted): Promise<"resolved" | "stale" | undefined> {
      return db.tx(async (tx) => {
        const current = await tx.get<{ claimedBy: string | null; token: number; v: number }>(
          `SELECT claimed_by AS "claimedBy", claim_token AS token, evidence_version AS v FROM contexts WHERE id = ? ${tx.dialect.forUpdate}`,
          [claim.contextKey],
        );
        if (!current || current.claimedBy !== claim.worker || Number(current.token) !== claim.token) return undefined;
        const now = new Date().toISOString();
        // Only the records the pass changed are written. Issued together: PostgreSQL pipelines them.
        const writes: Promise<number>[] = [];
        for (const r of output.records) {
          const before = loaded.records.get(r.id);
          if (!before) continue;
          const issues = JSON.stringify(r.issues);
          const lineage = encodeLineage(r.lineage);
          const sameData = before.sha256 !== null && before.sha256 === r.sha256;
          if (sameData && before.issues === issues && before.lineage === lineage) continue;
          writes.push(
            tx.run(`UPDATE records SET data = ?, sha256 = ?, issues = ?, lineage = ?${sameData ? "" : ", updated_at = ?"} WHERE id = ?`, [
              JSON.stringify(r.data),
              tx.dialect.digest(r.sha256),
              issues,
              lineage,
              ...(sameData ? [] : [tx.dialect.time(now)]),
              before.key,
            ]),
          );
        }
        await Promise.all(writes);
        await syncLinks(tx, loaded, output, now);
        const changed = await syncEvaluations(tx, loaded, output, now);
        const resolved = Number(current.v) === claim.evidenceVersion;
        forgetGroupState(tx);
        if (resolved) {
          await tx.run("UPDATE contexts SET freshness = 'resolved', resolved_version = ?, resolved_at = ?, claimed_by = NULL, lease_expires_at = NULL WHERE id = ?", [
            claim.evidenceVersion,
            tx.dialect.time(now),
            claim.contextKey,
          ]);
        } else {
          await tx.run("UPDATE contexts SET freshness = 'stale', claimed_by = NULL, lease_expires_at = NULL WHERE id = ?", [claim.contextKey]);
          tx.signal("work");
        }
        await onCommitted?.(tx, changed, resolved ? "resolved" : "stale");
        return resolved ? "resolved" : "stale";
      });
    },
    /** Gives a claim back without writing (the pass failed, or the worker is stopping). */
    async release(claim: Claim): Promise<void> {
      const changed = await db.run("UPDATE contexts SET freshness = 'stale', claimed_by = NULL, lease_expires_at = NULL WHERE id = ? AND claim_token = ? AND claimed_by = ?", [
        claim.contextKey,
        claim.token,
        claim.worker,
      ]);
      if (changed > 0) {
        forgetGroupState(db);
        db.signal("work");
      }
    },
    /** Gives back every claim a worker still holds (graceful shutdown); returns how many. */
    async releaseAll(worker: string): Promise<number> {
      const changed = await db.run("UPDATE contexts SET freshness = 'stale', claimed_by = NULL, lease_expires_at = NULL WHERE claimed_by = ? AND freshness = 'computing'", [
        worker,
      ]);
      if (changed > 0) {
        forgetGroupState(db);
        db.signal("work");
      }
      return changed;
    },
    /** Freshness and business status of some contexts, by id (for drains that wait). */
    async states(ids: string[]): Promise<{ id: string; freshness: string; status: string }[]> {
      if (ids.length === 0) return [];
      return db.all(`SELECT uuid AS id, freshness, status FROM contexts WHERE deleted_at IS NULL AND uuid IN (${list(ids.length)})`, ids.map((id) => d.uuid(id)));
    },
    /** Counts for `pipeline status`. */
    async status(workspace: string): Promise<{ resolved: number; stale: number; computing: number; waiting: number; expiredClaims: number }> {
      const rows = await db.all<{ freshness: string; status: string; lease: number | null }>(
        `SELECT freshness, status, ${d.epochMs("lease_expires_at")} AS lease FROM contexts WHERE workspace_id = ${WORKSPACE} AND deleted_at IS NULL`,
        [workspace],
      );
      const now = Date.now();
      const out = { resolved: 0, stale: 0, computing: 0, waiting: 0, expiredClaims: 0 };
      for (const r of rows) {
        out[r.freshness as "resolved" | "stale" | "computing"]++;
        if (r.freshness === "stale" && r.status !== "active") out.waiting++;
        if (r.freshness === "computing" && r.lease !== null && Number(r.lease) < now) out.expiredClaims++;
      }
      return out;
    },
    /** Active contexts the pipeline still has to resolve, across workspaces, by freshness (metrics). */
    async backlog(): Promise<{ stale: number; computing: number }> {
      const rows = await db.all<{ freshness: string; n: number }>(
        "SELECT freshness, COUNT(*) AS n FROM contexts WHERE deleted_at IS NULL AND status = 'active' AND freshness IN ('stale', 'computing') GROUP BY freshness",
      );
      const out = { stale: 0, computing: 0 };
      for (const r of rows) out[r.freshness as "stale" | "computing"] = Number(r.n);
      return out;
    },
  };
}

type RawContribution = Omit<PassInput["contributions"][number], "data" | "confidences"> & { data: string; confidences: string | null };

async function loadInput(tx: Sql, contextKey: number): Promise<LoadedPass | undefined> {
  const ctx = await tx.get<{ id: string; name: string | null; type: string | null; metadata: string; workspaceKey: number }>(
    `SELECT uuid AS id, name, type, metadata, workspace_id AS "workspaceKey" FROM contexts WHERE id = ?`,
    [contextKey],
  );
  if (!ctx) return undefined;
  // Issued together: PostgreSQL pipelines them on the transaction's connection.
  const [models, records, contributions, removals, rules] = await Promise.all([
    tx.all<{ compiled: string }>("SELECT compiled FROM models WHERE workspace_id = ? AND deleted_at IS NULL AND compiled IS NOT NULL", [ctx.workspaceKey]),
    tx.all<PassInput["records"][number] & StoredRecord>(
      `SELECT r.id AS key, r.uuid AS id, m.uuid AS "modelId", r.identity_key AS "identityKey", r.created_at AS "createdAt", r.sha256, r.issues, r.lineage
       FROM records r JOIN models m ON m.id = r.model_id WHERE r.context_id = ? AND r.deleted_at IS NULL`,
      [contextKey],
    ),
    tx.all<RawContribution>(
      `SELECT k.uuid AS id, r.uuid AS "recordId", m.uuid AS "modelId", k.source_id AS "sourceId", k.source_type AS "sourceType",
         k.data, k.field_confidences AS confidences, k.received_at AS "receivedAt", k.observed_at AS "observedAt"
       FROM records r JOIN contributions k ON k.record_id = r.id JOIN models m ON m.id = r.model_id
       WHERE r.context_id = ? AND r.deleted_at IS NULL AND k.status = 'accepted'`,
      [contextKey],
    ),
    tx.all<PassInput["removals"][number]>(
      `SELECT s.uuid AS "sourceRecordId", x.name, t.uuid AS "targetRecordId", x.source_identity AS "sourceIdentity", x.target_identity AS "targetIdentity"
       FROM relationship_removals x JOIN records s ON s.id = x.source_record_id JOIN records t ON t.id = x.target_record_id WHERE x.context_id = ?`,
      [contextKey],
    ),
    tx.all<{ key: number; id: string; name: string; version: number; expression: string; contextTypes: string }>(
      `SELECT id AS key, uuid AS id, name, version, expression, context_types AS "contextTypes" FROM rules WHERE workspace_id = ? AND status = 'active' AND deleted_at IS NULL`,
      [ctx.workspaceKey],
    ),
  ]);
  const keys = new Set<number>();
  for (const c of contributions) {
    storedKeys(c.data, keys);
    storedKeys(c.confidences, keys);
  }
  const fieldIds = await fieldIdsOf(tx, keys);
  const applying = rules.filter((r) => {
    const types = JSON.parse(r.contextTypes) as string[];
    return types.length === 0 || (ctx.type !== null && types.includes(ctx.type));
  });
  return {
    contextKey,
    records: new Map(records.map((r) => [r.id, { key: Number(r.key), sha256: r.sha256, issues: r.issues, lineage: r.lineage }])),
    rules: new Map(applying.map((r) => [r.id, Number(r.key)])),
    input: {
      context: { id: ctx.id, name: ctx.name, type: ctx.type, metadata: JSON.parse(ctx.metadata) as Record<string, unknown> },
      models: models.map((m) => JSON.parse(m.compiled) as CompiledModel),
      records: records.map((r) => ({ id: r.id, modelId: r.modelId, identityKey: r.identityKey, createdAt: r.createdAt })),
      contributions: contributions.map((c) => {
        const data = decodeValues(c.data, fieldIds);
        return { ...c, data, confidences: decodeConfidences(c.confidences, data, fieldIds) };
      }),
      removals,
      rules: applying.map((r) => ({ id: r.id, name: r.name, version: Number(r.version), expression: JSON.parse(r.expression) })),
    },
  };
}

async function syncLinks(tx: Sql, loaded: LoadedPass, output: PassOutput, now: string): Promise<void> {
  const existing = await tx.all<{ id: number; s: number; n: string; t: number }>(
    "SELECT id, source_record_id AS s, name AS n, target_record_id AS t FROM relationships WHERE context_id = ?",
    [loaded.contextKey],
  );
  const key = (s: number, n: string, t: number) => `${s}\u0000${n}\u0000${t}`;
  const wanted = new Map<string, { s: number; n: string; t: number }>();
  for (const l of output.links) {
    const s = loaded.records.get(l.sourceRecordId)?.key;
    const t = loaded.records.get(l.targetRecordId)?.key;
    if (s !== undefined && t !== undefined) wanted.set(key(s, l.name, t), { s, n: l.name, t });
  }
  const gone: number[] = [];
  for (const e of existing) {
    const k = key(Number(e.s), e.n, Number(e.t));
    if (wanted.has(k)) wanted.delete(k);
    else gone.push(Number(e.id));
  }
  await Promise.all([
    ...gone.map((id) => tx.run("DELETE FROM relationships WHERE id = ?", [id])),
    ...[...wanted.values()].map((l) =>
      tx.run("INSERT INTO relationships (context_id, source_record_id, name, target_record_id, created_at) VALUES (?, ?, ?, ?, ?)", [loaded.contextKey, l.s, l.n, l.t, tx.dialect.time(now)]),
    ),
  ]);
}

async function syncEvaluations(tx: Sql, loaded: LoadedPass, output: PassOutput, now: string): Promise<{ ruleId: string; outcome: boolean }[]> {
  const d = tx.dialect;
  const rows = await tx.all<{ key: number; ruleId: string; outcome: boolean; trace: string; v: number }>(
    `SELECT e.rule_id AS key, r.uuid AS "ruleId", e.outcome, e.trace, e.rule_version AS v FROM evaluations e JOIN rules r ON r.id = e.rule_id WHERE e.context_id = ?`,
    [loaded.contextKey],
  );
  const existing = new Map(rows.map((e) => [e.ruleId, e]));
  const changed: { ruleId: string; outcome: boolean }[] = [];
  const writes: Promise<number>[] = [];
  for (const e of output.evaluations) {
    const before = existing.get(e.ruleId);
    existing.delete(e.ruleId);
    const ruleKey = loaded.rules.get(e.ruleId);
    if (ruleKey === undefined) continue;
    const trace = JSON.stringify(e.trace);
    if (before && before.trace === trace && Number(before.v) === e.ruleVersion && Boolean(before.outcome) === e.outcome) continue;
    if (before && Boolean(before.outcome) !== e.outcome) changed.push({ ruleId: e.ruleId, outcome: e.outcome });
    writes.push(
      tx.run(
        `INSERT INTO evaluations (uuid, context_id, rule_id, rule_version, outcome, trace, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (context_id, rule_id) DO UPDATE SET rule_version = excluded.rule_version, outcome = excluded.outcome, trace = excluded.trace, computed_at = excluded.computed_at`,
        [d.uuid(newId()), loaded.contextKey, ruleKey, e.ruleVersion, d.bool(e.outcome), trace, d.time(now)],
      ),
    );
  }
  // Rules that no longer apply (inactive, deleted, contextTypes changed) lose their evaluation.
  for (const gone of existing.values()) writes.push(tx.run("DELETE FROM evaluations WHERE context_id = ? AND rule_id = ?", [loaded.contextKey, gone.key]));
  await Promise.all(writes);
  return changed;
}

/** The pipeline repository type. */
export type PipelineRepo = ReturnType<typeof createPipelineRepo>;
