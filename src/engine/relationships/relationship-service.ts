import { errors } from "../../contract/errors.js";
import type { DdsRecord, RelationshipLink } from "../../contract/schemas/index.js";
import type { IngestDeps } from "../evidence/ingest.js";
import { toApiRecord } from "../evidence/record-view.js";
import { contextNotActive } from "../evidence/evidence-problems.js";
import { requireRecord } from "../evidence/record-service.js";
import { requireContext } from "../contexts/context-service.js";
import type { EngineContext, Scope } from "../engine-context.js";

/** Relationship operations: read and remove only (links are made by the pipeline). */
export function createRelationshipService(ctx: EngineContext, deps: IngestDeps) {
  const source = async (s: Scope, recordId: string, name?: string) => {
    const record = await requireRecord(s, recordId);
    if (name !== undefined) {
      const model = (await deps.models.get(s, record.modelId)) ?? (await s.models.get(record.modelId));
      if (!model?.relationships.some((r) => r.name === name)) {
        throw errors.notFound("relationship", `"${name}" (model ${model?.name ?? record.modelId} declares no such relationship)`);
      }
    }
    return record;
  };
  return {
    async listRelationships(recordId: string): Promise<{ data: RelationshipLink[] }> {
      const record = await source(ctx, recordId);
      return {
        data: (await ctx.links.linksOf(record.key)).map((l) => ({
          relationshipName: l.name,
          targetRecordId: l.targetRecordId,
          targetModelId: l.targetModelId,
          targetModelName: l.targetModelName,
          createdAt: l.createdAt,
        })),
      };
    },
    async listRelatedRecords(recordId: string, relationshipName: string): Promise<{ data: DdsRecord[] }> {
      const record = await source(ctx, recordId, relationshipName);
      const links = await ctx.links.linksOf(record.key, relationshipName);
      const targets = new Map((await ctx.evidence.getRecords(links.map((l) => l.targetRecordId))).map((r) => [r.id, r]));
      const data: DdsRecord[] = [];
      for (const l of links) {
        const target = targets.get(l.targetRecordId);
        if (target) data.push(toApiRecord(target));
      }
      return { data };
    },
    async removeRelationship(recordId: string, relationshipName: string, targetRecordId: string): Promise<void> {
      await ctx.tx(async (s) => {
        const record = await source(s, recordId, relationshipName);
        const context = await requireContext(s, record.contextId, true);
        if (context.status !== "active") {
          throw contextNotActive(context, "changing its links");
        }
        const target = await s.evidence.getRecord(String(targetRecordId));
        const removed =
          target !== undefined &&
          (await s.links.removeLink(context.key, record.key, relationshipName, target.key, [record.identityKey, target.identityKey]));
        if (!removed) throw errors.notFound("link", `${recordId}/${relationshipName}/${targetRecordId}`);
        await deps.markStale(s, [context.key]);
      });
    },
  };
}
