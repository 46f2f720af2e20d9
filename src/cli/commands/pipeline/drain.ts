import type { Command } from "commander";
import type { CommandContext } from "../../command.js";

/** Adds `--no-wait` to a command that adds evidence or changes rules. */
export function withNoWait(cmd: Command): Command {
  return cmd.option("--no-wait", "return at once instead of waiting for the pipeline to resolve what changed");
}

/**
 * After evidence or a rule change, drains the pipeline so records and evaluations are
 * resolved before the command exits (SPEC.md §4); remote mode waits for the server's
 * worker instead. `contextIds` undefined means every stale context; an empty list means
 * nothing changed. Skipped with `--no-wait` (`flags.wait === false`).
 */
export async function drainPipeline(ctx: CommandContext, flags: Record<string, unknown>, contextIds?: string[]): Promise<void> {
  if (flags.wait === false) return;
  if (contextIds && contextIds.length === 0) return;
  const service = await ctx.service();
  const result = await service.runPipeline(contextIds ? { contextIds: [...new Set(contextIds)] } : {});
  const { out } = ctx;
  if (result.pending.length > 0) {
    out.warn(
      `${result.pending.length} context(s) not resolved yet: ${result.pending.join(", ")} ` +
        "(completed contexts wait until reopened; see ddsctl pipeline status)",
    );
  } else if (result.resolved.length > 0) {
    out.info(out.c.dim(`resolved ${result.resolved.length} context(s) in ${result.passes} pass(es)`));
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
