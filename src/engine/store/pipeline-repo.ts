import type { CompiledModel } from "../models/model-types.js";
import type { PassInput, PassOutput } from "../pipeline/types.js";
import type { Store } from "./db.js";
import { newId } from "../../util/ids.js";
import { statements } from "./statements.js";

/** A claim on a context: who holds it and which evidence version the pass saw. */
export interface Claim {
  contextId: string;
  workspace: string;
  evidenceVersion: number;
  worker: string;
}

/**
 * The pipeline's persistence: marking contexts stale, claiming them atomically with a
 * lease, loading a pass's input and committing its output. Not workspace-scoped: the
 * worker serves every workspace of the database.
 */
export function createPipelineRepo(store: Store) {
  const q = statements(store.raw);
  const markStmt = () =>
    q(`UPDATE contexts SET evidence_version = evidence_version + 1,
         freshness = CASE WHEN freshness = 'computing' THEN 'computing' ELSE 'stale' END
       WHERE id = ? AND deleted_at IS NULL AND status != 'archived'`);
  // Tried first so the caller learns which contexts *turned* stale (for `context.stale`)
  // without an extra read; it matches nothing for contexts already stale or computing.
  const turnStmt = () =>
    q(`UPDATE contexts SET evidence_version = evidence_version + 1, freshness = 'stale'
       WHERE id = ? AND deleted_at IS NULL AND status != 'archived' AND freshness = 'resolved'
       RETURNING id AS contextId, workspace`);
  return {
    /**
     * Evidence arrived: bump the version; resolved → stale (a computing pass will notice).
     * Returns the contexts that were resolved and are now stale, in the caller's transaction.
     */
    markStale(contextIds: Iterable<string>): { contextId: string; workspace: string }[] {
      const turned: { contextId: string; workspace: string }[] = [];
      const turn = turnStmt();
      const mark = markStmt();
      for (const id of contextIds) {
        const row = turn.get(id) as { contextId: string; workspace: string } | undefined;
        if (row) turned.push(row);
        else mark.run(id);
      }
      return turned;
    },
    /** Contexts of the workspace holding live records of any of these models. */
    contextsWithModels(modelIds: string[]): string[] {
      if (modelIds.length === 0) return [];
      return store.raw
        .prepare(`SELECT DISTINCT context_id FROM records WHERE deleted_at IS NULL AND model_id IN (${modelIds.map(() => "?").join(",")})`)
        .pluck()
        .all(...modelIds) as string[];
    },
    /** Every non-archived, live context of a workspace (rule changes reach them all). */
    contextsOfWorkspace(workspace: string): string[] {
      return q("SELECT id FROM contexts WHERE workspace = ? AND deleted_at IS NULL AND status != 'archived'").pluck().all(workspace) as string[];
    },
    /**
     * Claims one processable context: stale and active, or computing with an expired
     * lease (its worker died). Atomic: one UPDATE under the write lock.
     */
    claim(worker: string, leaseMs: number, scope: { workspace?: string; only?: string[] } = {}): Claim | undefined {
      const now = Date.now();
      const only = scope.only;
      const filter = `${scope.workspace ? "AND workspace = ?" : ""} ${only ? `AND id IN (${only.map(() => "?").join(",")})` : ""}`;
      const row = store.tx(
        () =>
          store.raw
            .prepare(
              `UPDATE contexts SET freshness = 'computing', claimed_by = ?, lease_expires_at = ?
               WHERE id = (SELECT id FROM contexts WHERE deleted_at IS NULL AND status = 'active'
                 AND (freshness = 'stale' OR (freshness = 'computing' AND (lease_expires_at IS NULL OR lease_expires_at < ?))) ${filter}
                 ORDER BY evidence_version - resolved_version DESC, id LIMIT 1)
               RETURNING id, workspace, evidence_version AS evidenceVersion`,
            )
            .get(worker, now + leaseMs, now, ...(scope.workspace ? [scope.workspace] : []), ...(only ?? [])) as { id: string; workspace: string; evidenceVersion: number } | undefined,
      );
      return row ? { contextId: row.id, workspace: row.workspace, evidenceVersion: row.evidenceVersion, worker } : undefined;
    },
    /** Reads everything a pass needs, in one read transaction (a consistent snapshot). */
    loadPassInput(claim: Claim): PassInput | undefined {
      return this.loadContextInput(claim.contextId);
    },
    /** The pass input of any context (no claim needed: dry-run evaluations read it too). */
    loadContextInput(contextId: string): PassInput | undefined {
      return store.raw.transaction(() => {
        const ctx = q("SELECT id, name, type, metadata, workspace FROM contexts WHERE id = ?").get(contextId) as
          | { id: string; name: string | null; type: string | null; metadata: string; workspace: string }
          | undefined;
        if (!ctx) return undefined;
        const models = (q("SELECT compiled FROM models WHERE workspace = ? AND deleted_at IS NULL AND compiled IS NOT NULL").pluck().all(ctx.workspace) as string[]).map(
          (c) => JSON.parse(c) as CompiledModel,
        );
        const records = q(
          "SELECT id, model_id AS modelId, identity_key AS identityKey, created_at AS createdAt FROM records WHERE context_id = ? AND deleted_at IS NULL",
        ).all(ctx.id) as PassInput["records"];
        const contributions = (
          q(`SELECT k.id, k.record_id AS recordId, k.model_id AS modelId, k.source_id AS sourceId, k.source_type AS sourceType,
               k.data, k.field_confidences AS confidences, k.received_at AS receivedAt, k.observed_at AS observedAt
             FROM contributions k JOIN records r ON r.id = k.record_id
             WHERE k.context_id = ? AND k.status = 'accepted' AND r.deleted_at IS NULL`).all(ctx.id) as (Omit<PassInput["contributions"][number], "data" | "confidences"> & { data: string; confidences: string })[]
        ).map((c) => ({ ...c, data: JSON.parse(c.data), confidences: JSON.parse(c.confidences) }));
        const removals = q(
          `SELECT source_record_id AS sourceRecordId, name, target_record_id AS targetRecordId, source_identity AS sourceIdentity,
             target_identity AS targetIdentity FROM relationship_removals WHERE context_id = ?`,
        ).all(ctx.id) as PassInput["removals"];
        const rules = (
          q("SELECT id, name, version, expression, context_types AS contextTypes FROM rules WHERE workspace = ? AND status = 'active' AND deleted_at IS NULL").all(
            ctx.workspace,
          ) as { id: string; name: string; version: number; expression: string; contextTypes: string }[]
        )
          .filter((r) => {
            const types = JSON.parse(r.contextTypes) as string[];
            return types.length === 0 || (ctx.type !== null && types.includes(ctx.type));
          })
          .map((r) => ({ id: r.id, name: r.name, version: r.version, expression: JSON.parse(r.expression) }));
        return {
          context: { id: ctx.id, name: ctx.name, type: ctx.type, metadata: JSON.parse(ctx.metadata) },
          models,
          records,
          contributions,
          removals,
          rules,
        };
      })();
    },
    /**
     * Commits a pass in one transaction: records, links, evaluations, then freshness. If
     * the claim was lost (lease expired and another worker took it) nothing is written.
     * If evidence arrived meanwhile, the context ends stale so it is claimed again.
     * Returns the final freshness, or undefined when the claim was lost.
     */
    commitPass(claim: Claim, output: PassOutput, onCommitted?: (changedOutcomes: { ruleId: string; outcome: boolean }[]) => void): "resolved" | "stale" | undefined {
      return store.tx(() => {
        const current = q("SELECT claimed_by AS claimedBy, evidence_version AS v, workspace FROM contexts WHERE id = ?").get(claim.contextId) as
          | { claimedBy: string | null; v: number; workspace: string }
          | undefined;
        if (!current || current.claimedBy !== claim.worker) return undefined;
        const now = new Date().toISOString();
        const upd = q("UPDATE records SET data = ?, sha256 = ?, issues = ?, lineage = ?, updated_at = CASE WHEN sha256 = ? THEN updated_at ELSE ? END WHERE id = ?");
        for (const r of output.records) {
          upd.run(JSON.stringify(r.data), r.sha256, JSON.stringify(r.issues), JSON.stringify(r.lineage), r.sha256, now, r.id);
        }
        syncLinks(q, claim, current.workspace, output, now);
        const changed = syncEvaluations(q, claim, current.workspace, output, now);
        const resolved = current.v === claim.evidenceVersion;
        if (resolved) {
          q("UPDATE contexts SET freshness = 'resolved', resolved_version = ?, resolved_at = ?, claimed_by = NULL, lease_expires_at = NULL WHERE id = ?").run(
            claim.evidenceVersion,
            now,
            claim.contextId,
          );
        } else {
          q("UPDATE contexts SET freshness = 'stale', claimed_by = NULL, lease_expires_at = NULL WHERE id = ?").run(claim.contextId);
        }
        onCommitted?.(changed);
        return resolved ? "resolved" : "stale";
      });
    },
    /** Gives a claim back without writing (the pass failed unexpectedly). */
    release(claim: Claim): void {
      q("UPDATE contexts SET freshness = 'stale', claimed_by = NULL, lease_expires_at = NULL WHERE id = ? AND claimed_by = ?").run(claim.contextId, claim.worker);
    },
    /** Freshness and business status of some contexts (for drains that wait). */
    states(ids: string[]): { id: string; freshness: string; status: string; lease: number | null }[] {
      if (ids.length === 0) return [];
      return store.raw
        .prepare(`SELECT id, freshness, status, lease_expires_at AS lease FROM contexts WHERE deleted_at IS NULL AND id IN (${ids.map(() => "?").join(",")})`)
        .all(...ids) as { id: string; freshness: string; status: string; lease: number | null }[];
    },
    /** Counts for `pipeline status`. */
    status(workspace: string): { resolved: number; stale: number; computing: number; waiting: number; expiredClaims: number } {
      const rows = q(
        "SELECT freshness, status, lease_expires_at AS lease FROM contexts WHERE workspace = ? AND deleted_at IS NULL",
      ).all(workspace) as { freshness: string; status: string; lease: number | null }[];
      const now = Date.now();
      const out = { resolved: 0, stale: 0, computing: 0, waiting: 0, expiredClaims: 0 };
      for (const r of rows) {
        out[r.freshness as "resolved" | "stale" | "computing"]++;
        if (r.freshness === "stale" && r.status !== "active") out.waiting++;
        if (r.freshness === "computing" && r.lease !== null && r.lease < now) out.expiredClaims++;
      }
      return out;
    },
  };
}

type Q = ReturnType<typeof statements>;

function syncLinks(q: Q, claim: Claim, workspace: string, output: PassOutput, now: string): void {
  const existing = q("SELECT id, source_record_id AS s, name AS n, target_record_id AS t FROM relationships WHERE context_id = ?").all(claim.contextId) as {
    id: string;
    s: string;
    n: string;
    t: string;
  }[];
  const key = (s: string, n: string, t: string) => `${s}\u0000${n}\u0000${t}`;
  const wanted = new Map(output.links.map((l) => [key(l.sourceRecordId, l.name, l.targetRecordId), l]));
  const del = q("DELETE FROM relationships WHERE id = ?");
  for (const e of existing) {
    const k = key(e.s, e.n, e.t);
    if (wanted.has(k)) wanted.delete(k);
    else del.run(e.id);
  }
  const ins = q(
    "INSERT INTO relationships (id, workspace, context_id, source_record_id, name, target_record_id, target_model_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  for (const l of wanted.values()) {
    ins.run(newId(), workspace, claim.contextId, l.sourceRecordId, l.name, l.targetRecordId, l.targetModelId, now);
  }
}

function syncEvaluations(q: Q, claim: Claim, workspace: string, output: PassOutput, now: string): { ruleId: string; outcome: boolean }[] {
  const existing = new Map(
    (q("SELECT rule_id AS ruleId, outcome, trace, rule_version AS v FROM evaluations WHERE context_id = ?").all(claim.contextId) as {
      ruleId: string;
      outcome: number;
      trace: string;
      v: number;
    }[]).map((e) => [e.ruleId, e]),
  );
  const changed: { ruleId: string; outcome: boolean }[] = [];
  const upsert = q(
    `INSERT INTO evaluations (id, workspace, context_id, rule_id, rule_version, outcome, trace, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(context_id, rule_id) DO UPDATE SET rule_version = excluded.rule_version, outcome = excluded.outcome, trace = excluded.trace, computed_at = excluded.computed_at`,
  );
  for (const e of output.evaluations) {
    const before = existing.get(e.ruleId);
    existing.delete(e.ruleId);
    const trace = JSON.stringify(e.trace);
    if (before && before.trace === trace && before.v === e.ruleVersion && Boolean(before.outcome) === e.outcome) continue;
    if (before && Boolean(before.outcome) !== e.outcome) changed.push({ ruleId: e.ruleId, outcome: e.outcome });
    upsert.run(newId(), workspace, claim.contextId, e.ruleId, e.ruleVersion, e.outcome ? 1 : 0, trace, now);
  }
  // Rules that no longer apply (inactive, deleted, contextTypes changed) lose their evaluation.
  const del = q("DELETE FROM evaluations WHERE context_id = ? AND rule_id = ?");
  for (const ruleId of existing.keys()) del.run(claim.contextId, ruleId);
  return changed;
}

/** The pipeline repository type. */
export type PipelineRepo = ReturnType<typeof createPipelineRepo>;
