import { hostname } from "node:os";
import type { PipelineRunOptions, PipelineRunResult } from "../../contract/service.js";
import { newId } from "../../util/ids.js";
import type { Store } from "../store/db.js";
import { createPipelineRepo, type Claim } from "../store/pipeline-repo.js";
import { runPass } from "./stages/index.js";

/** Options of a pipeline worker. */
export interface PipelineOptions {
  /** How long a claim lasts before another worker may take it over (default 30 s). */
  leaseMs?: number;
  /** Worker identity written into claims (default host:pid:random). */
  workerId?: string;
  /** Called after each committed pass, inside its transaction (webhook outbox). */
  onPass?: (event: PassEvent) => void;
}

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
 * and commits records, links, evaluations and freshness in one transaction.
 */
export function createPipeline(store: Store, options: PipelineOptions = {}) {
  const repo = createPipelineRepo(store);
  const leaseMs = options.leaseMs ?? 30_000;
  const worker = options.workerId ?? `${hostname()}:${process.pid}:${newId().slice(-12)}`;

  /** Runs one pass on a claimed context. A failure gives the claim back, writing nothing. */
  const pass = (claim: Claim): "resolved" | "stale" | undefined => {
    try {
      const input = repo.loadPassInput(claim);
      if (!input) {
        repo.release(claim);
        return undefined;
      }
      const output = runPass(input);
      return repo.commitPass(claim, output, (changedOutcomes) => {
        const current = repo.states([claim.contextId])[0];
        options.onPass?.({
          contextId: claim.contextId,
          workspace: claim.workspace,
          freshness: current?.freshness === "resolved" ? "resolved" : "stale",
          changedOutcomes,
        });
      });
    } catch (err) {
      repo.release(claim);
      throw err;
    }
  };

  return {
    repo,
    worker,
    /** Claims and processes one context of the scope; false when none was claimable. */
    step(scope: { workspace?: string; only?: string[] } = {}): boolean {
      const claim = repo.claim(worker, leaseMs, scope);
      if (!claim) return false;
      pass(claim);
      return true;
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
      for (;;) {
        const claim = repo.claim(worker, leaseMs, { workspace, only });
        if (claim) {
          passes++;
          if (pass(claim) === "resolved") resolved.add(claim.contextId);
          if (Date.now() > deadline) break;
          continue;
        }
        if (!only) break;
        const busy = repo.states(only).filter((s) => s.freshness === "computing");
        if (busy.length === 0 || Date.now() > deadline) break;
        await sleep(25);
      }
      const ids = only ?? [...resolved];
      const states = repo.states(ids);
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
