import type { CommandContext } from "../core/define-command.js";
import { resolveProgress } from "./resolve-progress.js";

/**
 * After evidence, a definition or a rule changes, drains the pipeline so records and
 * evaluations are resolved before the command exits (docs/pipeline.md, "Freshness");
 * remote mode waits for the server's worker instead. `contextIds` undefined means every
 * stale context; an empty list means nothing changed. Skipped with `--no-wait`.
 */
export async function drainPipeline(ctx: CommandContext, args: { wait: boolean }, contextIds?: string[]): Promise<void> {
  if (!args.wait) return;
  if (contextIds && contextIds.length === 0) return;
  const service = await ctx.service();
  const { out } = ctx;
  const ids = contextIds ? [...new Set(contextIds)] : undefined;
  const progress = resolveProgress(out, ids?.length);
  let result;
  try {
    result = await service.runPipeline({ ...(ids ? { contextIds: ids } : {}), ...(progress.onProgress ? { onProgress: progress.onProgress } : {}) });
  } finally {
    progress.done();
  }
  if (result.pending.length > 0) {
    out.warn(
      `${result.pending.length} context(s) not resolved yet: ${result.pending.join(", ")} ` +
        "(completed contexts wait until reopened; see ddsctl pipeline status)",
    );
  } else if (result.resolved.length > 0) {
    // Remotely the server's worker made the passes: the client only saw them finish.
    const passes = result.passes > 0 ? ` in ${result.passes} pass(es)` : "";
    out.info(out.c.dim(`resolved ${result.resolved.length} context(s)${passes}`));
  }
}

/** The `contextId` of each object that has one (bulk results, records). */
export function contextIdsOf(values: unknown[]): string[] {
  const ids: string[] = [];
  for (const v of values) {
    const id = v !== null && typeof v === "object" ? (v as { contextId?: unknown }).contextId : undefined;
    if (typeof id === "string") ids.push(id);
  }
  return ids;
}
