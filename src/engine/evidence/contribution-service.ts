import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import type { BulkResponse, Contribution, Page } from "../../contract/schemas/index.js";
import type { WriteOptions } from "../../contract/service.js";
import type { EngineContext, Scope } from "../engine-context.js";
import type { ContributionRow } from "../store/evidence-repo.js";
import type { ReplayCodec } from "../store/replay-repo.js";
import { bulkItems, bulkResponse } from "./bulk.js";
import { toApiContribution } from "./contribution-view.js";
import { createIngestWriter, ingestOne, type IngestDeps } from "./ingest.js";

/** Contribution operations of the service. */
export function createContributionService(ctx: EngineContext, deps: IngestDeps) {
  const { replay } = deps;

  // Items are checked one by one (a failing one changes nothing, so no savepoints) and
  // written together before the transaction commits.
  const bulk = async (s: Scope, items: unknown[]): Promise<BulkResponse> => {
    const writer = createIngestWriter(s, deps);
    const outcomes = await writer.addAll(items);
    await writer.flush();
    return bulkResponse(outcomes, 201);
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
  // rows, so the replay store keeps their ids (a tenth of the response) and rebuilds them;
  // each was "accepted" when created, which is what the first answer said.
  const replayCodec: ReplayCodec<BulkResponse> = {
    store: (res) => ({ ...res, items: res.items.map((i) => (i.data ? { index: i.index, status: i.status, id: (i.data as Contribution).contributionId } : i)) }),
    load: async (stored, db) => {
      const res = stored as Omit<BulkResponse, "items"> & { items: (BulkResponse["items"][number] & { id?: string })[] };
      const s = ctx.bind(db);
      const rows = await s.evidence.getContributions(res.items.flatMap((i) => (i.id ? [i.id] : [])));
      const byId = new Map((await toApi(s, rows)).map((c) => [c.contributionId, c]));
      return {
        ...res,
        items: res.items.map(({ id, ...item }) => {
          const contribution = id === undefined ? undefined : byId.get(id);
          return contribution ? { ...item, data: { ...contribution, status: "accepted" as const } } : item;
        }),
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
      return ctx.tx((s) => (key ? replay.once(s.db, key, "POST /contributions/bulk", () => bulk(s, items)) : bulk(s, items)));
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
