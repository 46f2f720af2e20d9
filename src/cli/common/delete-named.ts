import type { DdsService } from "../../contract/service.js";
import type { CommandContext } from "../core/define-command.js";
import { resolveRef, type RefKind } from "../../portable/names/resolve-ref.js";
import { withStatusCommands } from "./lifecycle-hints.js";

/** The status now of what must be archived before it is deleted (models, contexts). */
const ARCHIVED_FIRST: Partial<Record<RefKind, (service: DdsService, id: string) => Promise<string>>> = {
  context: async (service, id) => (await service.getContext(id)).status,
  model: async (service, id) => (await service.getModel(id)).status,
};

/**
 * The shape every `<group> delete <name|id>` shares: resolve the name, ask on a terminal
 * (unless `--yes`), delete, and say so on stderr. A model or context refused for not being
 * archived gets the commands that archive it.
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
  const statusOf = ARCHIVED_FIRST[kind];
  if (statusOf && (kind === "context" || kind === "model")) {
    const need = { kind, ref, id, target: "archived", codes: [`${kind}_not_archived` as const], status: () => statusOf(service, id) };
    await withStatusCommands(need, () => remove(service, id));
  } else {
    await remove(service, id);
  }
  if (!ctx.out.options.json) ctx.out.info(`deleted ${kind} ${ref}`);
}
