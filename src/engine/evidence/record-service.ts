import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import { parseBody } from "../../contract/parse.js";
import { RECORD_INCLUDES, RecordDeleteItem, RecordUpdate, RecordUpdateItem, type BulkResponse, type DdsRecord, type Page, type RecordInclude } from "../../contract/schemas/index.js";
import { requireContext } from "../contexts/context-service.js";
import { toApiField } from "../models/model-view.js";
import type { RecordRow } from "../store/evidence-repo.js";
import type { WriteOptions } from "../../contract/service.js";
import { bulkItems, runBulk } from "./bulk.js";
import { ingestOne, type IngestDeps } from "./ingest.js";
import { lineageOf, toApiRecord } from "./record-view.js";

/** The sourceId under which record updates are stored (one manual source per record). */
export const MANUAL_SOURCE_ID = "manual-update";

/** Record operations of the service. */
export function createRecordService(deps: IngestDeps) {
  const { ctx, evidence } = deps;
  const { replay } = deps;

  const requireRecord = (recordId: string): RecordRow => {
    const row = evidence.getRecord(String(recordId));
    if (!row) throw errors.notFound("record", recordId);
    return row;
  };

  const update = (recordId: string, body: unknown): DdsRecord => {
    const input = parseBody(RecordUpdate, body);
    const row = requireRecord(recordId);
    const confidences = Object.fromEntries(Object.keys(input.data).map((k) => [k, 1]));
    ingestOne(deps, {
      contextId: row.contextId,
      modelId: row.modelId,
      sourceId: MANUAL_SOURCE_ID,
      sourceType: "manual",
      data: input.data,
      fieldConfidences: confidences,
      recordId: row.id,
    });
    return toApiRecord(requireRecord(row.id));
  };

  const remove = (recordId: string): void => {
    const row = requireRecord(recordId);
    const context = requireContext(ctx, row.contextId);
    if (context.status !== "active") {
      throw errors.conflict("context_not_active", `context ${context.id} is ${context.status}; reopen it to change its records`);
    }
    // Records of archived models may still be deleted: otherwise such a model could never
    // meet its own delete precondition (no active records).
    const model = deps.models.get(row.modelId);
    if (model && model.status === "draft") throw errors.conflict("model_not_active", `model ${model.name} is a draft`);
    evidence.softDeleteRecord(row.id, new Date().toISOString());
    deps.markStale(row.contextId);
  };

  return {
    async listRecords(query?: ListQuery): Promise<Page<DdsRecord>> {
      const page = evidence.listRecords(query ?? {});
      return { data: page.rows.map(toApiRecord), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },
    async getRecord(recordId: string, options?: { include?: RecordInclude[] | string[] }): Promise<DdsRecord> {
      for (const inc of options?.include ?? []) {
        if (!RECORD_INCLUDES.includes(inc as RecordInclude)) throw errors.invalid(`unknown include "${inc}"; records support include=model,lineage`);
      }
      const row = requireRecord(recordId);
      const record = toApiRecord(row);
      if (options?.include?.includes("model")) {
        const model = deps.models.get(row.modelId) ?? ctx.models.get(row.modelId);
        if (model) record.model = { modelId: model.id, name: model.name, version: model.version, fields: model.fields.map(toApiField) };
      }
      if (options?.include?.includes("lineage")) record.lineage = lineageOf(row);
      return record;
    },
    async updateRecord(recordId: string, body: unknown): Promise<DdsRecord> {
      return ctx.store.tx(() => update(recordId, body));
    },
    async deleteRecord(recordId: string): Promise<void> {
      ctx.store.tx(() => remove(recordId));
    },
    async bulkUpdateRecords(body: unknown, options?: WriteOptions): Promise<BulkResponse> {
      const items = bulkItems(body);
      const run = () =>
        runBulk(ctx.store.tx, ctx.store.savepoint, items, 200, (item) => {
          const { recordId, data } = parseBody(RecordUpdateItem, item, "item");
          return update(recordId, { data });
        });
      return options?.idempotencyKey ? replay.once(options.idempotencyKey, "PATCH /records/bulk", run) : run();
    },
    async bulkDeleteRecords(body: unknown, options?: WriteOptions): Promise<BulkResponse> {
      const items = bulkItems(body);
      const run = () =>
        runBulk(ctx.store.tx, ctx.store.savepoint, items, 204, (item) => {
          remove(parseBody(RecordDeleteItem, item, "item").recordId);
          return undefined;
        });
      return options?.idempotencyKey ? replay.once(options.idempotencyKey, "DELETE /records/bulk", run) : run();
    },
  };
}
