import { hostname } from "node:os";
import type { PipelineRunOptions, PipelineRunResult } from "../../contract/service.js";
import { newId } from "../../util/ids.js";
import type { Sql } from "../store/sql.js";
import type { Store } from "../store/store.js";
import { createPipelineRepo, type Claim, type ClaimScope } from "../store/pipeline-repo.js";
import { runPass } from "./stages/index.js";

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
}

/** How a pass ended: committed resolved, committed but stale (evidence arrived meanwhile), refused at commit (its claim was taken over), or failed. */
export type PassOutcome = "resolved" | "stale" | "fenced" | "failed";

/** What an observer of the pipeline hears. */
export interface PipelineObserver {
  /** A context was claimed (`claim.takenOver`: from a worker whose lease had run out). */
  claimed?(claim: Claim): void;
  /** A pass ended; `seconds` from its claim to its commit (or failure). */
  passed?(claim: Claim, outcome: PassOutcome, seconds: number): void;
}

/** How long a drain's write group stays open (see PipelineOptions.groupPasses). */
const GROUP_MS = 250;

/** What a committed pass reports to listeners. */
export interface PassEvent {
  contextId: string;
  workspace: string;
  freshness: "resolved" | "stale";
  changedOutcomes: { ruleId: string; outcome: boolean }[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The resolution pipeline: claims stale contexts, runs the pure pass over a snapshot,
 * and commits records, links, evaluations and freshness in one transaction. While a pass
 * runs, a heartbeat extends its lease every third of it; a pass whose claim was taken over
 * meanwhile is refused at commit by the claim's fencing token.
 */
export function createPipeline(store: Store, options: PipelineOptions = {}) {
  const repo = createPipelineRepo(store.sql);
  const leaseMs = options.leaseMs ?? 30_000;
  const worker = options.workerId ?? `${hostname()}:${process.pid}:${newId().slice(-12)}`;
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

  /** Runs one pass on a claimed context. A failure gives the claim back, writing nothing. */
  const pass = async (claim: Claim): Promise<"resolved" | "stale" | undefined> => {
    const started = performance.now();
    const report = (outcome: PassOutcome) => options.observer?.passed?.(claim, outcome, (performance.now() - started) / 1000);
    options.observer?.claimed?.(claim);
    const heartbeat = setInterval(() => void repo.extend(claim, leaseMs).catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)));
    heartbeat.unref();
    try {
      const loaded = await repo.loadPassInput(claim);
      if (!loaded) {
        await repo.release(claim);
        return undefined;
      }
      const output = runPass(loaded.input);
      const freshness = await repo.commitPass(claim, loaded, output, async (tx, changedOutcomes, after) => {
        await options.onPass?.(tx, { contextId: claim.contextId, workspace: claim.workspace, freshness: after, changedOutcomes });
      });
      report(freshness ?? "fenced");
      return freshness;
    } catch (err) {
      report("failed");
      await repo.release(claim).catch(() => void unreleased.push(claim));
      throw err;
    } finally {
      clearInterval(heartbeat);
    }
  };

  return {
    repo,
    worker,
    /** Claims and processes one context of the scope; false when none was claimable. */
    async step(scope: ClaimScope = {}): Promise<boolean> {
      // Only when there are some: a step otherwise claims without yielding first.
      if (unreleased.length > 0) await releaseLeftovers();
      const claim = await repo.claim(worker, leaseMs, scope);
      if (!claim) return false;
      await pass(claim);
      return true;
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
      // SQLite only: on PostgreSQL a group would hold its contexts' row locks against other nodes.
      const group = groupedCommits(options.groupPasses && store.kind === "sqlite" ? store : undefined);
      try {
        for (;;) {
          group.open();
          const claim = await repo.claim(worker, leaseMs, { workspace, only });
          if (claim) {
            passes++;
            const freshness = await pass(claim);
            if (freshness === "resolved") {
              resolved.add(claim.contextId);
              opts.onProgress?.({ resolved: resolved.size, ...(total !== undefined ? { total } : {}) });
            }
            await group.due();
            if (Date.now() > deadline) break;
            continue;
          }
          // Others must see this drain's passes before it waits on theirs.
          await group.commit();
          if (!only) break;
          const busy = (await repo.states(only)).filter((s) => s.freshness === "computing");
          if (busy.length === 0 || Date.now() > deadline) break;
          await sleep(25);
        }
        await group.commit();
      } catch (err) {
        await group.rollback();
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

/**
 * The write groups of a drain: `open` starts one when none is open, `due` commits it once
 * it has been open for GROUP_MS, `commit` and `rollback` end it. Without a store that
 * offers write groups, each pass commits on its own and these do nothing.
 */
function groupedCommits(store: Store | undefined) {
  let group: ReturnType<NonNullable<Store["writeGroup"]>> | undefined;
  let openedAt = 0;
  const end = async (how: "commit" | "rollback") => {
    const g = group;
    group = undefined;
    await g?.[how]();
  };
  return {
    open() {
      if (!store?.writeGroup || group) return;
      group = store.writeGroup();
      openedAt = performance.now();
    },
    async due() {
      if (group && performance.now() - openedAt >= GROUP_MS) await end("commit");
    },
    commit: () => end("commit"),
    rollback: () => end("rollback"),
  };
}
