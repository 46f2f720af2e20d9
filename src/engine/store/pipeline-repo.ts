import type { PassOutput } from "../pipeline/types.js";
import { addWrites, noWrites, passChanges, type ChangedOutcome, type PassChanges } from "./pass-changes.js";
import type { GroupJournal } from "../pipeline/group-journal.js";
import { claimSessionOf } from "./claim-session.js";
import { passCacheOf } from "./pass-cache.js";
import { loadPasses, type LoadedPass } from "./pass-load.js";
import { resolvedContextsSql, staleContextsSql } from "./pass-freshness.js";
import { LateFenceLost, type PassStore } from "./pass-store.js";
import { forgetGroupState, type Sql } from "./sql.js";
import { WORKSPACE } from "./workspace-sql.js";

export type { LoadedPass } from "./pass-load.js";
export type { ChangedOutcome, PassChanges } from "./pass-changes.js";

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
  /** The context was computing under a claim that no longer stood (its lease ran out, or its holder's session ended): taken over. */
  takenOver: boolean;
}

/** Which contexts a claim may take. */
export interface ClaimScope {
  workspace?: string;
  only?: string[];
  /** Only these contexts, by key. */
  onlyKeys?: number[];
  /**
   * The claiming transaction holds every context of `onlyKeys` FOR UPDATE until it ends (a
   * write group resolving the contexts it wrote into): no writer of evidence into them is
   * under way, so the claim takes no gate (see postgres/pg-stale-gate.ts), which the group
   * would otherwise hold, one lock-table entry per context, until it commits.
   */
  held?: boolean;
  /**
   * Contexts this worker would rather take, by key (those its process holds in its pass
   * cache): their lag counts double in the claim's order, so each node keeps passing the
   * contexts it last passed and starts from memory, while a context nobody prefers is still
   * taken once it lags twice as far (nothing waits for ever behind a node's favourites).
   */
  prefer?: number[];
}

/** A pass committed: what its listeners (the webhook outbox) are told, inside its transaction. */
export interface CommittedPass {
  claim: Claim;
  changedOutcomes: ChangedOutcome[];
  freshness: "resolved" | "stale";
  /** When the context was resolved (the commit's time), if it was. */
  resolvedAt: string | null;
}

/** Called inside a commit's transaction for each of its passes that committed. */
export type OnCommitted = (tx: Sql, pass: CommittedPass) => Promise<void>;

/** A pass ready to commit: its claim and what it changes. */
export interface PassToCommit {
  claim: Claim;
  changes: PassChanges;
}

/** How a pass's commit ended: its context's freshness after it, or undefined when its claim was lost (fenced). */
export type CommitOutcome = "resolved" | "stale" | undefined;

const list = (n: number) => Array(n).fill("?").join(",");

/**
 * The pipeline's persistence: claiming contexts atomically with a lease (several at once),
 * loading the passes' input and committing their output. Not workspace-scoped: the worker
 * serves every workspace of the database. `passes` (the store's) writes a commit's rows;
 * without it the repository claims and reads but cannot commit.
 */
export function createPipelineRepo(db: Sql, passes?: PassStore) {
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
    /**
     * Keys of the contexts a change to these models' definitions reaches: those holding their
     * records, and, while the workspace has an active rule, every context (a rule reads a
     * model's paths in contexts without its records too: a renamed field reads as unknown).
     */
    async contextsOfModelChange(workspace: string, modelIds: string[]): Promise<number[]> {
      const rule = await db.get(`SELECT 1 AS x FROM rules WHERE workspace_id = ${WORKSPACE} AND status = 'active' AND deleted_at IS NULL LIMIT 1`, [workspace]);
      return rule ? this.contextsOfWorkspace(workspace) : this.contextsWithModels(modelIds);
    },
    /** Keys of every non-archived, live context of a workspace (rule changes reach them all). */
    async contextsOfWorkspace(workspace: string): Promise<number[]> {
      const rows = await db.all<{ id: number }>(`SELECT id FROM contexts WHERE workspace_id = ${WORKSPACE} AND deleted_at IS NULL AND status != 'archived'`, [workspace]);
      return rows.map((r) => Number(r.id));
    },
    /**
     * Claims up to `limit` processable contexts: stale and active, or computing under a
     * claim that no longer stands: its lease ran out, or (PostgreSQL) the session that held
     * its worker's mark ended, the process being dead (see claim-session.ts). Atomic: one
     * UPDATE of the rows its subquery picks, most behind first; on PostgreSQL that subquery
     * locks them with SKIP LOCKED (as a job queue's fetch does), so workers on other nodes,
     * or other lanes of this one, take other contexts at once and no context is claimed twice.
     */
    async claimMany(worker: string, leaseMs: number, limit: number, scope: ClaimScope = {}): Promise<Claim[]> {
      // This process's session marks the worker first: its claims then stand while it lives.
      await claimSessionOf(db)?.hold(worker);
      const now = Date.now();
      const lease = now + leaseMs;
      const only = scope.only;
      // Last in the OR: the holders' marks are read only for a claim whose lease still runs.
      const gone = d.claimHolderGone ? ` OR (claimed_by <> ? AND ${d.claimHolderGone("claimed_by")})` : "";
      // The gate (PostgreSQL) is tried on the picked rows only, outside their subquery (a
      // volatile test is not pushed into one with a LIMIT): a picked context whose gate a
      // writer's COMMIT holds is left for the next claim, as a row locked by one is skipped.
      const gated = (picked: string) => (d.claimGate && !scope.held ? `SELECT p.id FROM (${picked}) p WHERE ${d.claimGate("p.id")}` : picked);
      const filter = `${scope.workspace ? `AND workspace_id = ${WORKSPACE}` : ""} ${only ? `AND uuid IN (${list(only.length)})` : ""} ${scope.onlyKeys ? `AND ${d.inKeys("id")}` : ""}`;
      const prefer = scope.prefer && scope.prefer.length > 0 ? scope.prefer : undefined;
      const lag = `(evidence_version - resolved_version)${prefer ? ` * CASE WHEN ${d.inKeys("id")} THEN 2 ELSE 1 END` : ""}`;
      // A take-over (a computing context whose lease ran out) gets a lease 1 ms longer: RETURNING
      // sees only the new row (and SQLite's cannot read another table of an UPDATE ... FROM), so
      // this is how one statement tells a take-over from a claim of a stale context.
      const rows = await db.all<{ key: number; id: string; workspace: string; evidenceVersion: number; token: number; lease: number }>(
        `UPDATE contexts SET freshness = 'computing', claimed_by = ?,
           lease_expires_at = CASE WHEN freshness = 'computing' THEN ${d.timePlusMs("?", 1)} ELSE ? END, claim_token = claim_token + 1
         WHERE id IN (${gated(`SELECT id FROM contexts WHERE deleted_at IS NULL AND status = 'active'
           AND (freshness = 'stale' OR (freshness = 'computing' AND (lease_expires_at IS NULL OR lease_expires_at < ?${gone}))) ${filter}
           ORDER BY ${lag} DESC, id LIMIT ? ${d.skipLocked}`)})
         RETURNING id AS key, uuid AS id, (SELECT name FROM workspaces w WHERE w.id = contexts.workspace_id) AS workspace,
           evidence_version AS "evidenceVersion", claim_token AS token, ${d.epochMs("lease_expires_at")} AS lease`,
        [
          worker,
          d.time(lease),
          d.time(lease),
          d.time(now),
          ...(d.claimHolderGone ? [worker] : []),
          ...(scope.workspace ? [scope.workspace] : []),
          ...(only ?? []).map((id) => d.uuid(id)),
          ...(scope.onlyKeys ? [d.keyList(scope.onlyKeys)] : []),
          ...(prefer ? [d.keyList(prefer)] : []),
          Math.max(1, Math.floor(limit)),
        ],
      );
      // A write group's memo of context states no longer holds for the contexts claimed.
      if (rows.length > 0) forgetGroupState(db);
      return rows.map((row) => ({
        contextKey: Number(row.key),
        contextId: row.id,
        workspace: row.workspace,
        evidenceVersion: Number(row.evidenceVersion),
        worker,
        token: Number(row.token),
        takenOver: Number(row.lease) > lease,
      }));
    },
    /** How many pipeline workers hold a claim mark on this database (at least 1; SQLite: 1, see Dialect.liveWorkers). */
    async liveWorkers(): Promise<number> {
      if (!d.liveWorkers) return 1;
      const row = await db.get<{ n: number }>(d.liveWorkers);
      return Math.max(1, Number(row?.n ?? 1));
    },
    /** Claims one processable context (see claimMany), or undefined when none is claimable. */
    async claim(worker: string, leaseMs: number, scope: ClaimScope = {}): Promise<Claim | undefined> {
      return (await this.claimMany(worker, leaseMs, 1, scope))[0];
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
    /** Reads everything the passes of these claims need, at once, as little as each needs (see loadPasses); by context key. */
    loadPassInputs(claims: readonly Claim[], journal?: GroupJournal): Promise<Map<number, LoadedPass>> {
      return loadPasses(db, claims.map((c) => c.contextKey), journal ? { journal } : {});
    },
    /** Reads everything a pass needs, in one read-only transaction (a consistent snapshot). */
    async loadPassInput(claim: Claim): Promise<LoadedPass | undefined> {
      return (await this.loadPassInputs([claim])).get(claim.contextKey);
    },
    /** The full pass input of any context (no claim needed: dry-run evaluations read it too). */
    async loadContextInput(contextKey: number): Promise<LoadedPass | undefined> {
      return (await loadPasses(db, [contextKey], { incremental: false })).get(contextKey);
    },
    /**
     * Commits passes in one transaction: first their contexts are locked (in key order, as
     * every writer locks them; not against writers of evidence, whose marks wait for this) and each claim checked; a pass whose claim was lost (its
     * token is no longer the context's: the lease ran out and another worker took it over)
     * writes nothing and is answered undefined. The others' records, links and evaluations
     * are written together (only what changed), then their contexts' freshness: resolved,
     * or stale when evidence arrived meanwhile (it is claimed again). On PostgreSQL a
     * transaction of its own instead reads first and sends every write with its COMMIT,
     * with a fence after the rows that locks and checks the contexts (see `late` below): two
     * round trips for any number of passes, and writers of evidence into the same contexts
     * wait only while the database runs the end of the commit.
     */
    commitPasses(items: readonly PassToCommit[], onCommitted?: OnCommitted): Promise<CommitOutcome[]> {
      if (items.length === 0) return Promise.resolve([]);
      if (!passes) throw new Error("this pipeline repository cannot commit: it was made without the store's pass writer");
      const store = passes;
      const now = new Date().toISOString();
      /** The outcomes, and what each committed pass tells its listeners, from the contexts' rows as read. */
      const judge = (rows: readonly { key: number; claimedBy: string | null; token: number; v: number }[]) => {
        const current = new Map(rows.map((r) => [Number(r.key), r]));
        const committed: CommittedPass[] = [];
        const outcomes = items.map(({ claim, changes }): CommitOutcome => {
          const c = current.get(claim.contextKey);
          if (!c || c.claimedBy !== claim.worker || Number(c.token) !== claim.token) return undefined;
          // The evidence version is the one the claim read, or evidence arrived.
          const freshness = Number(c.v) === claim.evidenceVersion ? "resolved" : "stale";
          committed.push({ claim, changedOutcomes: changes.changedOutcomes, freshness, resolvedAt: freshness === "resolved" ? now : null });
          return freshness;
        });
        return { outcomes, committed };
      };
      /** The contexts' claims and evidence versions, in key order; `lock` holds their rows until the commit ends. */
      const readClaims = (tx: Sql, lock: boolean) => {
        const t = tx.dialect;
        return tx.all<{ key: number; claimedBy: string | null; token: number; v: number }>(
          `SELECT id AS key, claimed_by AS "claimedBy", claim_token AS token, evidence_version AS v FROM contexts WHERE ${t.inKeys("id")} ORDER BY id${lock ? ` ${t.forNoKeyUpdate}` : ""}`,
          [t.keyList(items.map((i) => i.claim.contextKey))],
        );
      };
      /** The writes of the passes whose outcome is set (every one, when none is undefined), their marks included. */
      const writesOf = (outcomes: readonly CommitOutcome[]) => {
        const writes = noWrites();
        items.forEach(({ claim, changes }, i) => {
          if (outcomes[i] === undefined) return;
          addWrites(writes, changes.writes);
          writes.marks.push({ contextKey: claim.contextKey, passedVersion: claim.evidenceVersion, passId: changes.passId, stamp: changes.stamp });
        });
        return writes;
      };
      /**
       * The contexts locked first (in key order, as every writer does), the fence and each
       * context's freshness read under the lock, then the writes of the passes whose claim
       * stands: three round trips while the contexts are held.
       */
      const locked = async (tx: Sql): Promise<CommitOutcome[]> => {
        const t = tx.dialect;
        const { outcomes, committed } = judge(await readClaims(tx, true));
        const keysOf = (outcome: CommitOutcome) => items.flatMap(({ claim }, i) => (outcomes[i] === outcome ? [claim.contextKey] : []));
        const resolved = keysOf("resolved");
        const stale = keysOf("stale");
        // Freshness changes below: a write group's memo of context states no longer holds.
        forgetGroupState(tx);
        // Issued together: PostgreSQL pipelines them on the transaction's connection.
        const done: Promise<unknown>[] = [store.write(tx, writesOf(outcomes), now)];
        if (resolved.length > 0) done.push(tx.run(resolvedContextsSql(t), [t.time(now), t.keyList(resolved)]));
        if (stale.length > 0) {
          done.push(tx.run(staleContextsSql(t), [t.keyList(stale)]));
          tx.signal("work");
        }
        if (onCommitted) for (const pass of committed) done.push(onCommitted(tx, pass));
        await Promise.all(done);
        return outcomes;
      };
      /**
       * PostgreSQL, a transaction of its own: the fence and each context's freshness read
       * without a lock, then every write (the webhook outbox's aside) sent with the COMMIT,
       * the rows before a fence that locks the contexts and checks that read again (pg-pass.ts,
       * LateCommit): one round trip before the COMMIT, and no lock held across a turn of
       * this process. A claim found gone, a context to resolve given evidence before the
       * COMMIT ran, or a lock not granted in time rolls it all back, for `locked` to commit again.
       */
      const late = async (tx: Sql): Promise<CommitOutcome[]> => {
        const commit = store.writeLate?.(tx);
        if (!commit) return locked(tx);
        const { outcomes, committed } = judge(await readClaims(tx, false));
        if (outcomes.includes(undefined)) throw new LateFenceLost();
        forgetGroupState(tx);
        const claims = items.map(({ claim }, i) => ({ contextKey: claim.contextKey, worker: claim.worker, token: claim.token, evidenceVersion: claim.evidenceVersion, resolve: outcomes[i] === "resolved" }));
        commit.finish(writesOf(outcomes), claims, now);
        if (outcomes.includes("stale")) tx.signal("work");
        if (onCommitted) await Promise.all(committed.map((pass) => onCommitted(tx, pass)));
        return outcomes;
      };
      const fenced = (err: unknown) => err instanceof LateFenceLost || store.isFenceFailure?.(err) === true;
      return db.tx(late).catch((err: unknown) => (fenced(err) ? db.tx(locked) : Promise.reject(err))).then((outcomes) => {
        // Committed (or a savepoint of a write group, whose rollback the pass id tells):
        // the next pass of each context starts from the state this one left.
        const cache = passCacheOf(db);
        items.forEach(({ claim, changes }, i) => {
          if (outcomes[i] !== undefined && changes.after) cache.put(claim.contextKey, changes.after);
        });
        return outcomes;
      });
    },
    /**
     * Commits one pass (see commitPasses). Returns the context's freshness after it, or
     * undefined when the claim was lost and nothing was written.
     */
    async commitPass(claim: Claim, loaded: LoadedPass, output: PassOutput, onCommitted?: OnCommitted): Promise<CommitOutcome> {
      const [outcome] = await this.commitPasses([{ claim, changes: passChanges(loaded, output) }], onCommitted);
      return outcome;
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
    /** Gives back every claim a worker still holds (graceful shutdown), then its mark; returns how many. */
    async releaseAll(worker: string): Promise<number> {
      const changed = await db.run("UPDATE contexts SET freshness = 'stale', claimed_by = NULL, lease_expires_at = NULL WHERE claimed_by = ? AND freshness = 'computing'", [
        worker,
      ]);
      await claimSessionOf(db)?.letGo(worker);
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
    /**
     * Counts for `pipeline status`: each context once, so resolved + stale + computing +
     * waiting is every context of the workspace. `stale` is an active context waiting for
     * a pass, `waiting` a stale one the pipeline does not process (completed until reopened,
     * archived for good); `expiredClaims` are among `computing`.
     */
    async status(workspace: string): Promise<{ resolved: number; stale: number; computing: number; waiting: number; expiredClaims: number }> {
      // A claim whose holder's session ended counts as expired too (PostgreSQL).
      const gone = d.claimHolderGone ? `CASE WHEN freshness = 'computing' AND ${d.claimHolderGone("claimed_by")} THEN 1 ELSE 0 END` : "0";
      const rows = await db.all<{ freshness: string; status: string; lease: number | null; gone: number }>(
        `SELECT freshness, status, ${d.epochMs("lease_expires_at")} AS lease, ${gone} AS gone FROM contexts WHERE workspace_id = ${WORKSPACE} AND deleted_at IS NULL`,
        [workspace],
      );
      const now = Date.now();
      const out = { resolved: 0, stale: 0, computing: 0, waiting: 0, expiredClaims: 0 };
      for (const r of rows) {
        if (r.freshness === "stale" && r.status !== "active") out.waiting++;
        else out[r.freshness as "resolved" | "stale" | "computing"]++;
        if (r.freshness === "computing" && ((r.lease !== null && Number(r.lease) < now) || Number(r.gone) === 1)) out.expiredClaims++;
      }
      return out;
    },
    /**
     * Active contexts the pipeline still has to resolve, across workspaces, by freshness,
     * and when the one that has waited longest turned stale (epoch ms; null when none waits):
     * the metrics read them at each scrape.
     */
    async backlog(): Promise<{ stale: number; computing: number; oldestStaleSince: number | null }> {
      const rows = await db.all<{ freshness: string; n: number; since: number | null }>(
        `SELECT freshness, COUNT(*) AS n, ${d.epochMs("MIN(COALESCE(stale_since, created_at))")} AS since FROM contexts
         WHERE deleted_at IS NULL AND status = 'active' AND freshness IN ('stale', 'computing') GROUP BY freshness`,
      );
      const out = { stale: 0, computing: 0, oldestStaleSince: null as number | null };
      for (const r of rows) {
        out[r.freshness as "stale" | "computing"] = Number(r.n);
        if (r.since !== null && (out.oldestStaleSince === null || Number(r.since) < out.oldestStaleSince)) out.oldestStaleSince = Number(r.since);
      }
      return out;
    },
  };
}

/** The pipeline repository type. */
export type PipelineRepo = ReturnType<typeof createPipelineRepo>;
