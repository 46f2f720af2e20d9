import type { CompiledModel } from "../models/model-types.js";
import type { PassInput, PassOutput } from "../pipeline/types.js";
import { newId } from "../../util/ids.js";
import { decodeConfidences } from "./confidence-codec.js";
import { encodeLineage } from "./lineage-codec.js";
import type { Sql } from "./sql.js";

/**
 * A claim on a context: who holds it, its fencing token, and which evidence version the
 * pass saw. Every claim of a context takes a new token; a pass commits only while the
 * context still carries its token, so a pass whose lease ran out and was taken over can
 * never commit late.
 */
export interface Claim {
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

/** Called inside a pass's commit transaction with the outcomes that flipped. */
export type OnCommitted = (tx: Sql, changedOutcomes: { ruleId: string; outcome: boolean }[]) => Promise<void>;

const list = (n: number) => Array(n).fill("?").join(",");

/**
 * The pipeline's persistence: claiming contexts atomically with a
 * lease, loading a pass's input and committing its output. Not workspace-scoped: the
 * worker serves every workspace of the database.
 */
export function createPipelineRepo(db: Sql) {
  return {
    /** Contexts of the workspace holding live records of any of these models. */
    async contextsWithModels(modelIds: string[]): Promise<string[]> {
      if (modelIds.length === 0) return [];
      const rows = await db.all<{ id: string }>(`SELECT DISTINCT context_id AS id FROM records WHERE deleted_at IS NULL AND model_id IN (${list(modelIds.length)})`, modelIds);
      return rows.map((r) => r.id);
    },
    /** Every non-archived, live context of a workspace (rule changes reach them all). */
    async contextsOfWorkspace(workspace: string): Promise<string[]> {
      const rows = await db.all<{ id: string }>("SELECT id FROM contexts WHERE workspace = ? AND deleted_at IS NULL AND status != 'archived'", [workspace]);
      return rows.map((r) => r.id);
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
      const filter = `${scope.workspace ? "AND workspace = ?" : ""} ${only ? `AND id IN (${list(only.length)})` : ""}`;
      // A take-over (a computing context whose lease ran out) gets a lease 1 ms longer: RETURNING
      // sees only the new row (and SQLite's cannot read another table of an UPDATE ... FROM), so
      // this is how one statement tells a take-over from a claim of a stale context.
      const row = await db.get<{ id: string; workspace: string; evidenceVersion: number; token: number; lease: number }>(
        `UPDATE contexts SET freshness = 'computing', claimed_by = ?, lease_expires_at = CAST(? AS BIGINT) + CASE WHEN freshness = 'computing' THEN 1 ELSE 0 END,
           claim_token = claim_token + 1
         WHERE id = (SELECT id FROM contexts WHERE deleted_at IS NULL AND status = 'active'
           AND (freshness = 'stale' OR (freshness = 'computing' AND (lease_expires_at IS NULL OR lease_expires_at < ?))) ${filter}
           ORDER BY evidence_version - resolved_version DESC, id LIMIT 1 ${db.dialect.skipLocked})
         RETURNING id, workspace, evidence_version AS "evidenceVersion", claim_token AS token, lease_expires_at AS lease`,
        [worker, lease, now, ...(scope.workspace ? [scope.workspace] : []), ...(only ?? [])],
      );
      return row
        ? { contextId: row.id, workspace: row.workspace, evidenceVersion: Number(row.evidenceVersion), worker, token: Number(row.token), takenOver: Number(row.lease) > lease }
        : undefined;
    },
    /** Extends a live claim's lease (a heartbeat); false when the claim was lost. */
    async extend(claim: Claim, leaseMs: number): Promise<boolean> {
      const changed = await db.run("UPDATE contexts SET lease_expires_at = ? WHERE id = ? AND claim_token = ? AND claimed_by = ? AND freshness = 'computing'", [
        Date.now() + leaseMs,
        claim.contextId,
        claim.token,
        claim.worker,
      ]);
      return changed === 1;
    },
    /** The earliest lease end among contexts being computed, if any (when a dead worker's claim comes free). */
    async nextLeaseExpiry(): Promise<number | undefined> {
      const row = await db.get<{ at: number | null }>("SELECT MIN(lease_expires_at) AS at FROM contexts WHERE freshness = 'computing' AND deleted_at IS NULL");
      return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
    },
    /** Reads everything a pass needs, in one read-only transaction (a consistent snapshot). */
    loadPassInput(claim: Claim): Promise<PassInput | undefined> {
      return this.loadContextInput(claim.contextId);
    },
    /** The pass input of any context (no claim needed: dry-run evaluations read it too). */
    loadContextInput(contextId: string): Promise<PassInput | undefined> {
      return db.tx((tx) => loadInput(tx, contextId), { readOnly: true });
    },
    /**
     * Commits a pass in one transaction: records, links, evaluations, then freshness. If
     * the claim was lost (its token is no longer the context's: the lease expired and
     * another worker took it) nothing is written. If evidence arrived meanwhile, the
     * context ends stale so it is claimed again. Returns the final freshness, or undefined
     * when the claim was lost.
     */
    commitPass(claim: Claim, output: PassOutput, onCommitted?: OnCommitted): Promise<"resolved" | "stale" | undefined> {
      return db.tx(async (tx) => {
        const current = await tx.get<{ claimedBy: string | null; token: number; v: number; workspace: string }>(
          `SELECT claimed_by AS "claimedBy", claim_token AS token, evidence_version AS v, workspace FROM contexts WHERE id = ? ${tx.dialect.forUpdate}`,
          [claim.contextId],
        );
        if (!current || current.claimedBy !== claim.worker || Number(current.token) !== claim.token) return undefined;
        const now = new Date().toISOString();
        // Issued together: PostgreSQL pipelines them on the transaction's connection.
        await Promise.all(
          output.records.map((r) =>
            tx.run("UPDATE records SET data = ?, sha256 = ?, issues = ?, lineage = ?, updated_at = CASE WHEN sha256 = ? THEN updated_at ELSE ? END WHERE id = ?", [
              JSON.stringify(r.data),
              r.sha256,
              JSON.stringify(r.issues),
              encodeLineage(r.lineage),
              r.sha256,
              now,
              r.id,
            ]),
          ),
        );
        await syncLinks(tx, claim, current.workspace, output, now);
        const changed = await syncEvaluations(tx, claim, current.workspace, output, now);
        const resolved = Number(current.v) === claim.evidenceVersion;
        if (resolved) {
          await tx.run("UPDATE contexts SET freshness = 'resolved', resolved_version = ?, resolved_at = ?, claimed_by = NULL, lease_expires_at = NULL WHERE id = ?", [
            claim.evidenceVersion,
            now,
            claim.contextId,
          ]);
        } else {
          await tx.run("UPDATE contexts SET freshness = 'stale', claimed_by = NULL, lease_expires_at = NULL WHERE id = ?", [claim.contextId]);
          tx.signal("work");
        }
        await onCommitted?.(tx, changed);
        return resolved ? "resolved" : "stale";
      });
    },
    /** Gives a claim back without writing (the pass failed, or the worker is stopping). */
    async release(claim: Claim): Promise<void> {
      const changed = await db.run("UPDATE contexts SET freshness = 'stale', claimed_by = NULL, lease_expires_at = NULL WHERE id = ? AND claim_token = ? AND claimed_by = ?", [
        claim.contextId,
        claim.token,
        claim.worker,
      ]);
      if (changed > 0) db.signal("work");
    },
    /** Gives back every claim a worker still holds (graceful shutdown); returns how many. */
    async releaseAll(worker: string): Promise<number> {
      const changed = await db.run("UPDATE contexts SET freshness = 'stale', claimed_by = NULL, lease_expires_at = NULL WHERE claimed_by = ? AND freshness = 'computing'", [
        worker,
      ]);
      if (changed > 0) db.signal("work");
      return changed;
    },
    /** Freshness and business status of some contexts (for drains that wait). */
    async states(ids: string[]): Promise<{ id: string; freshness: string; status: string; lease: number | null }[]> {
      if (ids.length === 0) return [];
      return db.all(`SELECT id, freshness, status, lease_expires_at AS lease FROM contexts WHERE deleted_at IS NULL AND id IN (${list(ids.length)})`, ids);
    },
    /** Counts for `pipeline status`. */
    async status(workspace: string): Promise<{ resolved: number; stale: number; computing: number; waiting: number; expiredClaims: number }> {
      const rows = await db.all<{ freshness: string; status: string; lease: number | null }>(
        "SELECT freshness, status, lease_expires_at AS lease FROM contexts WHERE workspace = ? AND deleted_at IS NULL",
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

async function loadInput(tx: Sql, contextId: string): Promise<PassInput | undefined> {
  const ctx = await tx.get<{ id: string; name: string | null; type: string | null; metadata: string; workspace: string }>(
    "SELECT id, name, type, metadata, workspace FROM contexts WHERE id = ?",
    [contextId],
  );
  if (!ctx) return undefined;
  // Issued together: PostgreSQL pipelines them on the transaction's connection.
  const [models, records, contributions, removals, rules] = await Promise.all([
    tx.all<{ compiled: string }>("SELECT compiled FROM models WHERE workspace = ? AND deleted_at IS NULL AND compiled IS NOT NULL", [ctx.workspace]),
    tx.all<PassInput["records"][number]>(
      `SELECT id, model_id AS "modelId", identity_key AS "identityKey", created_at AS "createdAt" FROM records WHERE context_id = ? AND deleted_at IS NULL`,
      [ctx.id],
    ),
    tx.all<Omit<PassInput["contributions"][number], "data" | "confidences"> & { data: string; confidences: string }>(
      `SELECT k.id, k.record_id AS "recordId", k.model_id AS "modelId", k.source_id AS "sourceId", k.source_type AS "sourceType",
         k.data, k.field_confidences AS confidences, k.received_at AS "receivedAt", k.observed_at AS "observedAt"
       FROM records r JOIN contributions k ON k.record_id = r.id
       WHERE r.context_id = ? AND r.deleted_at IS NULL AND k.status = 'accepted'`,
      [ctx.id],
    ),
    tx.all<PassInput["removals"][number]>(
      `SELECT source_record_id AS "sourceRecordId", name, target_record_id AS "targetRecordId", source_identity AS "sourceIdentity",
         target_identity AS "targetIdentity" FROM relationship_removals WHERE context_id = ?`,
      [ctx.id],
    ),
    tx.all<{ id: string; name: string; version: number; expression: string; contextTypes: string }>(
      `SELECT id, name, version, expression, context_types AS "contextTypes" FROM rules WHERE workspace = ? AND status = 'active' AND deleted_at IS NULL`,
      [ctx.workspace],
    ),
  ]);
  return {
    context: { id: ctx.id, name: ctx.name, type: ctx.type, metadata: JSON.parse(ctx.metadata) },
    models: models.map((m) => JSON.parse(m.compiled) as CompiledModel),
    records,
    contributions: contributions.map((c) => {
      const data = JSON.parse(c.data) as Record<string, unknown>;
      return { ...c, data, confidences: decodeConfidences(c.confidences, data) };
    }),
    removals,
    rules: rules
      .filter((r) => {
        const types = JSON.parse(r.contextTypes) as string[];
        return types.length === 0 || (ctx.type !== null && types.includes(ctx.type));
      })
      .map((r) => ({ id: r.id, name: r.name, version: Number(r.version), expression: JSON.parse(r.expression) })),
  };
}

async function syncLinks(tx: Sql, claim: Claim, workspace: string, output: PassOutput, now: string): Promise<void> {
  const existing = await tx.all<{ id: string; s: string; n: string; t: string }>(
    "SELECT id, source_record_id AS s, name AS n, target_record_id AS t FROM relationships WHERE context_id = ?",
    [claim.contextId],
  );
  const key = (s: string, n: string, t: string) => `${s}\u0000${n}\u0000${t}`;
  const wanted = new Map(output.links.map((l) => [key(l.sourceRecordId, l.name, l.targetRecordId), l]));
  const gone: string[] = [];
  for (const e of existing) {
    const k = key(e.s, e.n, e.t);
    if (wanted.has(k)) wanted.delete(k);
    else gone.push(e.id);
  }
  await Promise.all([
    ...gone.map((id) => tx.run("DELETE FROM relationships WHERE id = ?", [id])),
    ...[...wanted.values()].map((l) =>
      tx.run(
        "INSERT INTO relationships (id, workspace, context_id, source_record_id, name, target_record_id, target_model_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [newId(), workspace, claim.contextId, l.sourceRecordId, l.name, l.targetRecordId, l.targetModelId, now],
      ),
    ),
  ]);
}

async function syncEvaluations(tx: Sql, claim: Claim, workspace: string, output: PassOutput, now: string): Promise<{ ruleId: string; outcome: boolean }[]> {
  const rows = await tx.all<{ ruleId: string; outcome: number; trace: string; v: number }>(
    `SELECT rule_id AS "ruleId", outcome, trace, rule_version AS v FROM evaluations WHERE context_id = ?`,
    [claim.contextId],
  );
  const existing = new Map(rows.map((e) => [e.ruleId, e]));
  const changed: { ruleId: string; outcome: boolean }[] = [];
  const writes: Promise<number>[] = [];
  for (const e of output.evaluations) {
    const before = existing.get(e.ruleId);
    existing.delete(e.ruleId);
    const trace = JSON.stringify(e.trace);
    if (before && before.trace === trace && Number(before.v) === e.ruleVersion && Boolean(Number(before.outcome)) === e.outcome) continue;
    if (before && Boolean(Number(before.outcome)) !== e.outcome) changed.push({ ruleId: e.ruleId, outcome: e.outcome });
    writes.push(
      tx.run(
        `INSERT INTO evaluations (id, workspace, context_id, rule_id, rule_version, outcome, trace, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (context_id, rule_id) DO UPDATE SET rule_version = excluded.rule_version, outcome = excluded.outcome, trace = excluded.trace, computed_at = excluded.computed_at`,
        [newId(), workspace, claim.contextId, e.ruleId, e.ruleVersion, e.outcome ? 1 : 0, trace, now],
      ),
    );
  }
  // Rules that no longer apply (inactive, deleted, contextTypes changed) lose their evaluation.
  for (const ruleId of existing.keys()) writes.push(tx.run("DELETE FROM evaluations WHERE context_id = ? AND rule_id = ?", [claim.contextId, ruleId]));
  await Promise.all(writes);
  return changed;
}

/** The pipeline repository type. */
export type PipelineRepo = ReturnType<typeof createPipelineRepo>;
