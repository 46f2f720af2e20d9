import { errors } from "../../contract/errors.js";
import type { DdsRecord, RelationshipLink } from "../../contract/schemas/index.js";
import type { IngestDeps } from "../evidence/ingest.js";
import { toApiRecord } from "../evidence/record-view.js";
import { requireContext } from "../contexts/context-service.js";
import type { RelationshipRepo } from "../store/relationship-repo.js";

/** Relationship operations: read and remove only (links are made by the pipeline). */
export function createRelationshipService(deps: IngestDeps, links: RelationshipRepo) {
  const { ctx, evidence } = deps;
  const source = (recordId: string, name?: string) => {
    const record = evidence.getRecord(String(recordId));
    if (!record) throw errors.notFound("record", recordId);
    if (name !== undefined) {
      const model = deps.models.get(record.modelId) ?? ctx.models.get(record.modelId);
      if (!model?.relationships.some((r) => r.name === name)) {
        throw errors.notFound("relationship", `"${name}" (model ${model?.name ?? record.modelId} declares no such relationship)`);
      }
    }
    return record;
  };
  return {
    async listRelationships(recordId: string): Promise<{ data: RelationshipLink[] }> {
      const record = source(recordId);
      return {
        data: links.linksOf(record.id).map((l) => ({
          relationshipName: l.name,
          targetRecordId: l.targetRecordId,
          targetModelId: l.targetModelId,
          targetModelName: l.targetModelName,
          createdAt: l.createdAt,
        })),
      };
    },
    async listRelatedRecords(recordId: string, relationshipName: string): Promise<{ data: DdsRecord[] }> {
      const record = source(recordId, relationshipName);
      const data: DdsRecord[] = [];
      for (const l of links.linksOf(record.id, relationshipName)) {
        const target = evidence.getRecord(l.targetRecordId);
        if (target) data.push(toApiRecord(target));
      }
      return { data };
    },
    async removeRelationship(recordId: string, relationshipName: string, targetRecordId: string): Promise<void> {
      ctx.store.tx(() => {
        const record = source(recordId, relationshipName);
        const context = requireContext(ctx, record.contextId);
        if (context.status !== "active") {
          throw errors.conflict("context_not_active", `context ${context.id} is ${context.status}; reopen it to change its links`);
        }
        const target = evidence.getRecord(String(targetRecordId));
        const removed =
          target !== undefined &&
          links.removeLink(context.id, ctx.workspace, record.id, relationshipName, target.id, [record.identityKey, target.identityKey]);
        if (!removed) throw errors.notFound("link", `${recordId}/${relationshipName}/${targetRecordId}`);
        deps.markStale(context.id);
      });
    },
  };
}
