import type { ContextLink } from "../../contract/schemas/index.js";
import { requireContext } from "../contexts/context-service.js";
import type { EngineContext } from "../engine-context.js";
import { createContextLinkRepo } from "../store/context-link-repo.js";

/** `GET /contexts/{id}/relationships`: a case's record graph in one read (404 for another workspace's context). */
export function createContextLinkService(ctx: EngineContext) {
  const repo = createContextLinkRepo(ctx.db);
  return {
    async listContextRelationships(contextId: string): Promise<{ data: ContextLink[] }> {
      const context = await requireContext(ctx, contextId);
      return { data: await repo.linksOfContext(context.id) };
    },
  };
}
