import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import { parseBody } from "../../contract/parse.js";
import { RECORD_INCLUDES } from "../../contract/constants.js";
import type { BulkResponse, DdsRecord, Page, RecordInclude } from "../../contract/schemas/index.js";
import { requestSchemas } from "../request-schemas.js";
import { requireContext } from "../contexts/context-service.js";
import type { EngineContext, Scope } from "../engine-context.js";
import { toApiField } from "../models/model-view.js";
import type { RecordRow } from "../store/evidence-repo.js";
import type { WriteOptions } from "../../contract/service.js";
import { bulkItems, runBulk } from "./bulk.js";
import { ingestOne, type IngestDeps } from "./ingest.js";
import { lineageOf, toApiRecord } from "./record-view.js";
import { contextNotActive } from "./evidence-problems.js";

/** The sourceId under which record updates are stored (one manual source per record). */
export const MANUAL_SOURCE_ID = "manual-update";

/** Loads a live record of the workspace or throws 404. */
export async function requireRecord(s: Scope, recordId: string): Promise<RecordRow> {
  const row = await s.evidence.getRecord(String(recordId));
  if (!row) throw errors.notFound("record", recordId);
  return row;
}

/** Record operations of the service. */
export function createRecordService(ctx: EngineContext, deps: IngestDeps) {
  const { replay } = deps;

  const update = async (s: Scope, recordId: string, body: unknown): Promise<DdsRecord> => {
    const input = parseBody((await requestSchemas()).RecordUpdate, body);
    const row = await requireRecord(s, recordId);
    const confidences = Object.fromEntries(Object.keys(input.data).map((k) => [k, 1]));
    // An edit is stored whatever it says (the record is stale after it, as the API promises).
    await ingestOne(
      s,
      deps,
      {
        contextId: row.contextId,
        modelId: row.modelId,
        sourceId: MANUAL_SOURCE_ID,
        sourceType: "manual",
        data: input.data,
        fieldConfidences: confidences,
        recordId: row.id,
      },
      undefined,
      { unchanged: false },
    );
    const answer = toApiRecord(await requireRecord(s, row.id));
    // The edit marks its context stale as its transaction commits (PostgreSQL sends the mark
    // with the COMMIT), so a pass that committed meanwhile may show here as `resolved`, with
    // the data from before the edit: the answer says what holds once the edit is in.
    if (answer.freshness === "resolved") answer.freshness = "stale";
    return answer;
  };

  const remove = async (s: Scope, recordId: string): Promise<void> => {
    const row = await requireRecord(s, recordId);
    const context = await requireContext(s, row.contextId, true);
    if (context.status !== "active") {
      throw contextNotActive(context, "changing its records");
    }
    // Records of archived models may still be deleted: otherwise such a model could never
    // meet its own delete precondition (no active records).
    const model = await deps.models.get(s, row.modelId);
    if (model && model.status === "draft") throw errors.conflict("model_not_active", `model ${model.name} is a draft`);
    await s.evidence.softDeleteRecord(row.key, new Date().toISOString());
    await deps.markStale(s, [row.contextKey], [row.key]);
  };

  /** A bulk run in one transaction, exactly once under a key. */
  const keyed = (key: string | undefined, what: string, run: (s: Scope) => Promise<BulkResponse>) =>
    ctx.tx((s) => (key ? replay.once(s.db, key, what, () => run(s)) : run(s)));

  return {
    async listRecords(query?: ListQuery): Promise<Page<DdsRecord>> {
      const page = await ctx.evidence.listRecords(query ?? {});
      return { data: page.rows.map(toApiRecord), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },
    async getRecord(recordId: string, options?: { include?: RecordInclude[] | string[] }): Promise<DdsRecord> {
      for (const inc of options?.include ?? []) {
        if (!RECORD_INCLUDES.includes(inc as RecordInclude)) throw errors.invalid(`unknown include "${inc}"; records support include=model,lineage`);
      }
      const row = await requireRecord(ctx, recordId);
      const record = toApiRecord(row);
      if (options?.include?.includes("model")) {
        const model = (await deps.models.get(ctx, row.modelId)) ?? (await ctx.models.get(row.modelId));
        if (model) record.model = { modelId: model.id, name: model.name, version: model.version, fields: model.fields.map(toApiField) };
      }
      if (options?.include?.includes("lineage")) record.lineage = lineageOf(row);
      return record;
    },
    async updateRecord(recordId: string, body: unknown): Promise<DdsRecord> {
      return ctx.tx((s) => update(s, recordId, body));
    },
    async deleteRecord(recordId: string): Promise<void> {
      await ctx.tx((s) => remove(s, recordId));
    },
    async bulkUpdateRecords(body: unknown, options?: WriteOptions): Promise<BulkResponse> {
      const items = bulkItems(body);
      const { RecordUpdateItem } = await requestSchemas();
      return keyed(options?.idempotencyKey, "PATCH /records/bulk", (s) =>
        runBulk(s, items, 200, (inner, item) => {
          const { recordId, data } = parseBody(RecordUpdateItem, item, "item");
          return update(inner, recordId, { data });
        }),
      );
    },
    async bulkDeleteRecords(body: unknown, options?: WriteOptions): Promise<BulkResponse> {
      const items = bulkItems(body);
      const { RecordDeleteItem } = await requestSchemas();
      return keyed(options?.idempotencyKey, "DELETE /records/bulk", (s) =>
        runBulk(s, items, 204, async (inner, item) => {
          await remove(inner, parseBody(RecordDeleteItem, item, "item").recordId);
          return undefined;
        }),
      );
    },
  };
}
