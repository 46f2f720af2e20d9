import { hostname } from "node:os";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { PipelineRunOptions, PipelineRunResult } from "../../contract/service.js";
import type { Sql } from "../store/sql.js";
import type { Store } from "../store/store.js";
import { passCacheOf } from "../store/pass-cache.js";
import { passChanges } from "../store/pass-changes.js";
import { createPipelineRepo, type Claim, type ClaimScope, type CommitOutcome, type PassToCommit } from "../store/pipeline-repo.js";
import { runPass } from "./stages/index.js";
import { GroupedCommits } from "../write-groups.js";
import type { GroupJournal } from "./group-journal.js";

/** Options of a pipeline worker. */
export interface PipelineOptions {
  /** How long a claim lasts before another worker may take it over (default 30 s). */
  leaseMs?: number;
  /** Worker identity written into claims (default host:pid:random). */
  workerId?: string;
  /** Called after each committed pass, inside its transaction (webhook outbox). */
  onPass?: (tx: Sql, event: PassEvent) => Promise<void>;
  /**
   * Commits the passes of a drain together, a write group every {@link GROUP_MS}, when the
   * store offers write groups (SQLite). For a process that is the database's only user
   * in-process (the CLI): records of interleaved contexts share pages, and committing a
   * pass at a time wrote each page once per context. A kill loses the passes of the open
   * group only; their contexts stay stale and are claimed again.
   */
  groupPasses?: boolean;
  /** Told about every claim and every pass's outcome (the server's metrics and logs). */
  observer?: PipelineObserver;
  /**
   * How many contexts a drain claims, reads and commits together (default 1). On
   * PostgreSQL a batch costs the round trips of one pass (claim, read, commit), whatever
   * its size; see also the server worker's concurrency.
   */
  batchSize?: number;
  /**
   * A batch of passes still running after this long is taken as stuck (a database call
   * that never settles, seen after a node was frozen past its lease): its heartbeat stops,
   * so its claims lapse and another worker takes them over, and the step is given up with
   * an error. Unset: no limit (a drain in the CLI). The server's worker sets it.
   */
  maxPassMs?: number;
}

/** How a pass ended: committed resolved, committed but stale (evidence arrived meanwhile), refused at commit (its claim was taken over), or failed. */
export type PassOutcome = "resolved" | "stale" | "fenced" | "failed";

/** What an observer of the pipeline hears. */
export interface PipelineObserver {
  /** A context was claimed (`claim.takenOver`: from a worker whose lease had run out or whose session ended). */
  claimed?(claim: Claim): void;
  /** A pass ended; `seconds` from its claim to its commit (or failure). */
  passed?(claim: Claim, outcome: PassOutcome, seconds: number): void;
}

/** How long a drain's write group stays open (see PipelineOptions.groupPasses). */
const GROUP_MS = 250;
/** Contexts a write group's passes claim, read and commit together. */
const GROUP_BATCH = 50;
/**
 * The most contexts of its pass cache a claim prefers (see ClaimScope.prefer): the most
 * recently passed, so the claim's order tests a short list per stale context.
 */
const PREFER_MAX = 256;

/** What a committed pass reports to listeners. */
export interface PassEvent {
  contextId: string;
  workspace: string;
  freshness: "resolved" | "stale";
  /** The evaluations whose outcome flipped, with their ids and rule names (the pass knows them). */
  changedOutcomes: { ruleId: string; outcome: boolean; evaluationId: string; ruleName: string }[];
  /** When the context was resolved (the commit's time), if it was. */
  resolvedAt: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The resolution pipeline: claims stale contexts (one or a batch at a time), runs the pure
 * pass over a snapshot of each, and commits records, links, evaluations and freshness in
 * one transaction. While passes run, a heartbeat extends their leases every third of one;
 * a pass whose claim was taken over meanwhile is refused at commit by the claim's fencing
 * token.
 */
export function createPipeline(store: Store, options: PipelineOptions = {}) {
  const repo = createPipelineRepo(store.sql, store.passes);
  const leaseMs = options.leaseMs ?? 30_000;
  // The suffix only tells apart two workers of one process (and a reused pid): no need for
  // an id, which would load node:crypto into every command that opens an engine.
  const worker = options.workerId ?? `${hostname()}:${process.pid}:${Math.random().toString(16).slice(2, 14)}`;
  /**
   * Claims a failed pass could not give back (the database was away): given back before the
   * next claim, so their contexts are picked up again at once rather than when their lease
   * runs out.
   */
  const unreleased: Claim[] = [];
  const releaseLeftovers = async () => {
    while (unreleased.length > 0) {
      await repo.release(unreleased[0]);
      unreleased.shift();
    }
  };

  const giveBack = async (claim: Claim) => {
    await repo.release(claim).catch(() => void unreleased.push(claim));
  };

  /**
   * Runs the passes of claimed contexts together: their input read at once, each pure pass
   * in turn (yielding to the event loop between them, so requests keep flowing), their
   * changes committed at once. A pass that throws gives its claim back and writes nothing;
   * the others still commit, and the first failure is thrown afterwards. While the passes
   * run, a heartbeat extends their leases every third of one.
   */
  const runBatch = async (claims: Claim[], at: { phase: string }, journal?: GroupJournal): Promise<CommitOutcome[]> => {
    const started = performance.now();
    const report = (claim: Claim, outcome: PassOutcome) => options.observer?.passed?.(claim, outcome, (performance.now() - started) / 1000);
    for (const claim of claims) options.observer?.claimed?.(claim);
    const heartbeat = setInterval(() => {
      // A stuck batch stops extending its claims: they lapse and are taken over.
      if (options.maxPassMs !== undefined && performance.now() - started > options.maxPassMs) return clearInterval(heartbeat);
      for (const claim of claims) void repo.extend(claim, leaseMs).catch(() => undefined);
    }, Math.max(1, Math.floor(leaseMs / 3)));
    heartbeat.unref();
    let failure: unknown;
    const ready: PassToCommit[] = [];
    const outcomes = new Map<Claim, CommitOutcome>();
    try {
      let loaded;
      try {
        at.phase = "reading its inputs";
        loaded = await repo.loadPassInputs(claims, journal);
      } catch (err) {
        for (const claim of claims) report(claim, "failed");
        await Promise.all(claims.map(giveBack));
        throw err;
      }
      at.phase = "running its passes";
      for (const claim of claims) {
        const input = loaded.get(claim.contextKey);
        if (!input) {
          // The context is gone (deleted meanwhile): nothing to resolve. Given back like a failed
          // pass (kept for later if that fails too), so the batch's other passes still commit.
          await giveBack(claim);
          continue;
        }
        try {
          ready.push({ claim, changes: passChanges(input, runPass(input.input)) });
        } catch (err) {
          report(claim, "failed");
          await giveBack(claim);
          failure ??= err;
        }
        if (claims.length > 1) await yieldToEventLoop();
      }
      let committed: CommitOutcome[];
      try {
        at.phase = "committing";
        committed = await repo.commitPasses(ready, async (tx, pass) => {
          await options.onPass?.(tx, {
            contextId: pass.claim.contextId,
            workspace: pass.claim.workspace,
            freshness: pass.freshness,
            changedOutcomes: pass.changedOutcomes,
            resolvedAt: pass.resolvedAt,
          });
        });
      } catch (err) {
        for (const { claim } of ready) report(claim, "failed");
        await Promise.all(ready.map(({ claim }) => giveBack(claim)));
        throw err;
      }
      ready.forEach(({ claim }, i) => {
        outcomes.set(claim, committed[i]);
        report(claim, committed[i] ?? "fenced");
      });
    } finally {
      clearInterval(heartbeat);
    }
    if (failure !== undefined) throw failure;
    return claims.map((c) => outcomes.get(c));
  };

  /**
   * The batch's outcome, or an error once it has run past `maxPassMs` and its claims' last
   * lease after that (by then they are free to be taken over; a late commit is fenced).
   */
  const withinLimit = <T>(batch: Promise<T>, at: { phase: string }): Promise<T> => {
    if (options.maxPassMs === undefined) return batch;
    const limit = options.maxPassMs + leaseMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`a batch of passes ran for ${Math.round(limit / 1000)} s without ending (stuck ${at.phase}); its claims were left to lapse`)), limit);
    });
    // A batch that ends after being given up must not become an unhandled rejection.
    batch.catch(() => undefined);
    return Promise.race([batch, stuck]).finally(() => clearTimeout(timer));
  };

  /** Claims up to `limit` contexts of the scope and runs their passes; the claims, or none. */
  const stepMany = async (limit: number, scope: ClaimScope = {}): Promise<{ claims: Claim[]; outcomes: CommitOutcome[] }> => {
    // Only when there are some: a step otherwise claims without yielding first.
    if (unreleased.length > 0) await releaseLeftovers();
    // Beside other processes, contexts this one holds in memory first (see ClaimScope.prefer).
    const prefer = store.hearsOtherProcesses && !scope.onlyKeys ? passCacheOf(store.sql).recentKeys(PREFER_MAX) : undefined;
    const claims = await repo.claimMany(worker, leaseMs, limit, prefer ? { ...scope, prefer } : scope);
    if (claims.length === 0) return { claims, outcomes: [] };
    const at = { phase: "starting" };
    return { claims, outcomes: await withinLimit(runBatch(claims, at), at) };
  };

  return {
    repo,
    worker,
    /**
     * Resolves, inside an open write group as it ends, the contexts the group wrote into,
     * from what its journal holds (nothing the group wrote is read back): all of them where
     * records stand alone, and where records depend on each other those the group gave a
     * good share of their records (see loadPasses). The others stay stale for a later pass.
     * Returns the keys of the contexts it resolved.
     */
    async resolveGroup(journal: GroupJournal): Promise<Set<number>> {
      const keys = [...journal.contexts().keys()];
      const resolved = new Set<number>();
      // In batches: a batch's input and output are held in memory together.
      for (let i = 0; i < keys.length; i += GROUP_BATCH) {
        const claims = await repo.claimMany(worker, leaseMs, GROUP_BATCH, { onlyKeys: keys.slice(i, i + GROUP_BATCH), held: true });
        if (claims.length === 0) continue;
        const outcomes = await runBatch(claims, { phase: "starting" }, journal);
        claims.forEach((c, n) => {
          if (outcomes[n] === "resolved") resolved.add(c.contextKey);
        });
      }
      return resolved;
    },
    /** Claims and processes one context of the scope; false when none was claimable. */
    async step(scope: ClaimScope = {}): Promise<boolean> {
      return (await stepMany(1, scope)).claims.length > 0;
    },
    /**
     * Claims up to `limit` contexts of the scope in one statement and runs their passes
     * together (see runBatch); resolves to how many it claimed (0: none was claimable).
     */
    async stepMany(limit: number, scope: ClaimScope = {}): Promise<number> {
      return (await stepMany(limit, scope)).claims.length;
    },
    /** Gives back every claim this worker holds (shutdown); returns how many. */
    releaseAll(): Promise<number> {
      return repo.releaseAll(worker);
    },
    /**
     * Processes until the scope has nothing claimable, then waits (polling) for contexts
     * another worker is computing. Contexts that cannot be processed (completed, archived)
     * are reported as pending rather than waited for.
     */
    async drain(workspace: string, opts: PipelineRunOptions = {}): Promise<PipelineRunResult> {
      const deadline = opts.timeoutMs !== undefined ? Date.now() + opts.timeoutMs : Infinity;
      const only = opts.contextIds?.map((id) => id.toLowerCase());
      const resolved = new Set<string>();
      let passes = 0;
      const total = only?.length;
      const batch = Math.max(1, options.batchSize ?? 1);
      // Not where writers run side by side (PostgreSQL): a group would hold its contexts' row locks against other nodes.
      const groups = new GroupedCommits(options.groupPasses && !store.concurrentWriters && store.writeGroup ? () => store.writeGroup!() : undefined, GROUP_MS);
      try {
        for (;;) {
          groups.begin();
          const { claims, outcomes } = await stepMany(batch, { workspace, only });
          if (claims.length > 0) {
            passes += claims.length;
            claims.forEach((claim, i) => {
              if (outcomes[i] === "resolved") resolved.add(claim.contextId);
            });
            opts.onProgress?.({ resolved: resolved.size, ...(total !== undefined ? { total } : {}) });
            if (groups.isDue()) await groups.take()?.commit();
            if (Date.now() > deadline) break;
            continue;
          }
          // Others must see this drain's passes before it waits on theirs.
          await groups.take()?.commit();
          if (!only) break;
          const busy = (await repo.states(only)).filter((s) => s.freshness === "computing");
          if (busy.length === 0 || Date.now() > deadline) break;
          await sleep(25);
        }
        await groups.take()?.commit();
      } catch (err) {
        await groups.take()?.rollback();
        throw err;
      }
      const ids = only ?? [...resolved];
      const states = await repo.states(ids);
      return {
        passes,
        resolved: states.filter((s) => s.freshness === "resolved").map((s) => s.id).sort(),
        pending: states.filter((s) => s.freshness !== "resolved").map((s) => s.id).sort(),
      };
    },
  };
}

/** The pipeline type. */
export type Pipeline = ReturnType<typeof createPipeline>;
