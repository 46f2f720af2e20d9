import type { DdsService } from "../../contract/service.js";
import type { CommandContext } from "../core/define-command.js";
import { resolveRef, type RefKind } from "../names/resolve-ref.js";

/**
 * The shape every `<group> delete <name|id>` shares: resolve the name, ask on a terminal
 * (unless `--yes`), delete, and say so on stderr.
 */
export async function deleteNamed(
  ctx: CommandContext,
  kind: RefKind,
  ref: string,
  yes: boolean,
  remove: (service: DdsService, id: string) => Promise<void>,
): Promise<void> {
  const service = await ctx.service();
  const id = await resolveRef(service, kind, ref);
  await ctx.confirm(`Delete ${kind} ${ref}?`, yes);
  await remove(service, id);
  if (!ctx.out.options.json) ctx.out.info(`deleted ${kind} ${ref}`);
}
