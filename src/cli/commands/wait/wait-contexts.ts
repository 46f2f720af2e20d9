import type { DdsService } from "../../../contract/service.js";
import { statusCommands } from "../../common/lifecycle-hints.js";

/** How waiting for contexts ended. */
export interface WaitOutcome {
  resolved: string[];
  /** Still stale or computing when the time ran out. */
  pending: string[];
  /** Stale but completed or archived: the pipeline does not process them, so waiting cannot help. */
  unresolvable: { contextId: string; status: string; freshness: string }[];
}

/**
 * Waits until each context is resolved (the local engine drains the pipeline for them,
 * remote mode polls the server's worker), or the timeout passes. A stale context that is
 * not active is reported as unresolvable at once instead of being waited for.
 */
export async function waitForContexts(service: DdsService, contextIds: string[], timeoutMs?: number): Promise<WaitOutcome> {
  const ids = [...new Set(contextIds.map((id) => id.toLowerCase()))];
  const contexts = await Promise.all(ids.map((id) => service.getContext(id)));
  const unresolvable = contexts
    .filter((c) => c.status !== "active" && c.freshness !== "resolved")
    .map((c) => ({ contextId: c.contextId, status: c.status, freshness: c.freshness }));
  const stuck = new Set(unresolvable.map((u) => u.contextId));
  const live = ids.filter((id) => !stuck.has(id));
  const outcome: WaitOutcome = { resolved: [], pending: [], unresolvable };
  if (live.length === 0) return outcome;
  const result = await service.runPipeline({ contextIds: live, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
  outcome.resolved = result.resolved;
  outcome.pending = result.pending;
  return outcome;
}

/** The message for a context waiting cannot resolve; `ref` is how the user named it. */
export function unresolvableText(u: WaitOutcome["unresolvable"][number], ref: string): string {
  const reopen = statusCommands("context", ref, u.status, "active");
  const how = reopen ? `reopen it: ${reopen}` : `${u.status} contexts are permanent, so it stays ${u.freshness}`;
  return `context ${ref} is ${u.status} and ${u.freshness}: the pipeline only processes active contexts (${how})`;
}
