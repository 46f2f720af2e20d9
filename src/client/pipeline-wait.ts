import { isDdsError } from "../contract/errors.js";
import type { DdsService, PipelineRunOptions, PipelineRunResult } from "../contract/service.js";
import { pushAll } from "../portable/arrays.js";

/** Poll interval while waiting for the server's worker. */
const POLL_MS = 50;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ids of every active context the pipeline still has to resolve (all pages). */
async function unresolvedContexts(service: Pick<DdsService, "listContexts">): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await service.listContexts({
      filters: [
        { field: "freshness", op: "in", value: "stale,computing" },
        { field: "status", op: "eq", value: "active" },
      ],
      limit: 500,
      cursor,
    });
    pushAll(ids, page.data.map((c) => c.contextId));
    cursor = page.hasNextPage && page.nextCursor ? page.nextCursor : undefined;
  } while (cursor);
  return ids;
}

/**
 * Remote `runPipeline`: the server's worker resolves contexts on its own, so this waits,
 * polling each context until it is resolved, or is not active (completed contexts are
 * not processed: reported pending, not waited for), or the timeout passes. Without
 * contextIds it waits for every context that is unresolved when it starts. `passes` is 0:
 * the passes ran on the server.
 */
export async function waitForPipeline(
  service: Pick<DdsService, "getContext" | "listContexts">,
  options: PipelineRunOptions = {},
): Promise<PipelineRunResult> {
  const deadline = options.timeoutMs !== undefined ? Date.now() + options.timeoutMs : Infinity;
  const ids = [...new Set((options.contextIds ?? (await unresolvedContexts(service))).map((id) => id.toLowerCase()))];
  const resolved: string[] = [];
  const stuck: string[] = [];
  let waiting = ids;
  for (;;) {
    const states = await Promise.all(
      waiting.map((id) =>
        service.getContext(id).catch((err: unknown) => {
          // A context that does not exist (any more) is neither resolved nor pending.
          if (isDdsError(err) && err.status === 404) return undefined;
          throw err;
        }),
      ),
    );
    const next: string[] = [];
    for (const context of states) {
      if (!context) continue;
      if (context.freshness === "resolved") resolved.push(context.contextId);
      else if (context.status !== "active") stuck.push(context.contextId);
      else next.push(context.contextId);
    }
    waiting = next;
    options.onProgress?.({ resolved: resolved.length, total: ids.length });
    if (waiting.length === 0 || Date.now() >= deadline) break;
    await sleep(POLL_MS);
  }
  return { passes: 0, resolved: resolved.sort(), pending: [...stuck, ...waiting].sort() };
}
