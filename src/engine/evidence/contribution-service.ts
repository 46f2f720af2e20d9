import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import type { BulkResponse, Contribution, Page } from "../../contract/schemas/index.js";
import type { WriteOptions } from "../../contract/service.js";
import type { EngineContext, Scope } from "../engine-context.js";
import type { ContributionRow } from "../store/evidence-repo.js";
import type { ReplayCodec } from "../store/idempotency-repo.js";
import { bulkItems, bulkResponse } from "./bulk.js";
import { toApiContribution } from "./contribution-view.js";
import { createIngestWriter, ingestOne, type IngestDeps } from "./ingest.js";
import { requestSchemas } from "../request-schemas.js";

/** Contribution operations of the service. */
export function createContributionService(ctx: EngineContext, deps: IngestDeps) {
  const { replay } = deps;

  /** The store's keys of a bulk answer's contributions, for its replay copy (see replayCodec). */
  const keysOf = new WeakMap<BulkResponse, number[]>();

  // Items are checked one by one (a failing one changes nothing, so no savepoints) and
  // written together before the transaction commits.
  const bulk = async (s: Scope, items: unknown[], writer = createIngestWriter(s, deps)): Promise<BulkResponse> => {
    const outcomes = await writer.addAll(items, { jsonChecked: true });
    await writer.flush();
    const res = bulkResponse(outcomes, 201);
    keysOf.set(res, writer.writtenKeys());
    return res;
  };

  /** Rows in the API's shape, each model's field names read once. */
  const toApi = async (s: Scope, rows: ContributionRow[]): Promise<Contribution[]> => {
    const names = new Map<string, Map<string, string>>();
    const out: Contribution[] = [];
    for (const row of rows) {
      let n = names.get(row.modelId);
      if (!n) names.set(row.modelId, (n = await deps.models.fieldNames(s, row.modelId)));
      out.push(toApiContribution(row, n));
    }
    return out;
  };

  // A replayed bulk answers what the first call answered. Its contributions are stored
  // rows, so the replay copy keeps each one's key (a number in place of the item: a
  // fiftieth of the response) and rebuilds them; each was "accepted" when created, which
  // is what the first answer said. Copies made before the store had keys name the
  // contributions by id (`{index, status, id}`), and still replay.
  const replayCodec: ReplayCodec<BulkResponse> = {
    store: (res) => {
      const keys = keysOf.get(res) ?? [];
      let next = 0;
      // An item answered with the contribution it equals stored nothing: it is kept by id.
      return {
        items: res.items.map((i) => (i.data && i.status === 200 ? { index: i.index, status: i.status, id: (i.data as Contribution).contributionId } : i.data ? keys[next++] : i)),
        summary: res.summary,
      };
    },
    load: async (stored, db) => {
      type Old = BulkResponse["items"][number] & { id?: string };
      const res = stored as { summary: BulkResponse["summary"]; items: (number | Old)[] };
      const s = ctx.bind(db);
      const keys = res.items.filter((i): i is number => typeof i === "number");
      const ids = res.items.flatMap((i) => (typeof i === "object" && i.id ? [i.id] : []));
      const rows = [...(await s.evidence.getContributionsByKey(keys)), ...(await s.evidence.getContributions(ids))];
      const api = await toApi(s, rows);
      const byKey = new Map(rows.map((r, n) => [r.key, api[n]]));
      const byId = new Map(api.map((c) => [c.contributionId, c]));
      const accepted = (c: Contribution | undefined) => (c ? { ...c, status: "accepted" as const } : undefined);
      return {
        items: res.items.map((item, index) => {
          if (typeof item === "number") return { index, status: 201, data: accepted(byKey.get(item)) };
          const { id, ...rest } = item;
          const data = id === undefined ? undefined : accepted(byId.get(id));
          return data ? { ...rest, data } : rest;
        }),
        summary: res.summary,
      };
    },
  };

  replay.register("POST /contributions/bulk", replayCodec);

  return {
    async createContribution(body: unknown): Promise<Contribution> {
      return ctx.tx((s) => ingestOne(s, deps, body));
    },
    async bulkCreateContributions(body: unknown, options?: WriteOptions): Promise<BulkResponse> {
      const items = bulkItems(body);
      const key = options?.idempotencyKey;
      return ctx.tx(async (s) => {
        // Inside the transaction, which a call opens as soon as it is made (a write group
        // relies on that order); the writer's synchronous prepare may need the schema.
        await requestSchemas();
        if (!key) return bulk(s, items);
        const writer = createIngestWriter(s, deps);
        return replay.once(s.db, key, "POST /contributions/bulk", () => bulk(s, items, writer), () => writer.prepare(items, { jsonChecked: true }));
      });
    },
    async getContribution(contributionId: string): Promise<Contribution> {
      const row = await ctx.evidence.getContribution(String(contributionId));
      if (!row || !(await ctx.contexts.get(row.contextId))) throw errors.notFound("contribution", contributionId);
      return toApiContribution(row, await deps.models.fieldNames(ctx, row.modelId));
    },
    async listContributions(query?: ListQuery): Promise<Page<Contribution>> {
      const page = await ctx.evidence.listContributions(query ?? {});
      return { data: await toApi(ctx, page.rows), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },
  };
}
