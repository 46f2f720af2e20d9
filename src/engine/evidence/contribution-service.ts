import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import type { BulkResponse, Contribution, Page } from "../../contract/schemas/index.js";
import type { WriteOptions } from "../../contract/service.js";
import type { ContributionRow } from "../store/evidence-repo.js";
import type { ReplayCodec } from "../store/replay-repo.js";
import { bulkItems, runBulk } from "./bulk.js";
import { toApiContribution } from "./contribution-view.js";
import { createIngestWriter, ingestOne, type IngestDeps } from "./ingest.js";

/** Contribution operations of the service. */
export function createContributionService(deps: IngestDeps) {
  const { ctx, evidence } = deps;
  const { replay } = deps;

  const bulk = (items: unknown[]): BulkResponse => {
    // Items are checked one by one (a failing one changes nothing, so no savepoints) and
    // written together before the transaction commits.
    const writer = createIngestWriter(deps);
    return runBulk(ctx.store.tx, (fn) => fn(), items, 201, (item) => writer.add(item), () => writer.flush());
  };

  /** Rows in the API's shape, each model's field names read once. */
  const toApi = (rows: ContributionRow[]): Contribution[] => {
    const names = new Map<string, Map<string, string>>();
    return rows.map((row) => {
      let n = names.get(row.modelId);
      if (!n) names.set(row.modelId, (n = deps.models.fieldNames(row.modelId)));
      return toApiContribution(row, n);
    });
  };

  // A replayed bulk answers what the first call answered. Its contributions are stored
  // rows, so the replay store keeps their ids (a tenth of the response) and rebuilds them;
  // each was "accepted" when created, which is what the first answer said.
  const replayCodec: ReplayCodec<BulkResponse> = {
    store: (res) => ({ ...res, items: res.items.map((i) => (i.data ? { index: i.index, status: i.status, id: (i.data as Contribution).contributionId } : i)) }),
    load: (stored) => {
      const res = stored as Omit<BulkResponse, "items"> & { items: (BulkResponse["items"][number] & { id?: string })[] };
      const byId = new Map(toApi(evidence.getContributions(res.items.flatMap((i) => (i.id ? [i.id] : [])))).map((c) => [c.contributionId, c]));
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
      return ctx.store.tx(() => ingestOne(deps, body));
    },
    async bulkCreateContributions(body: unknown, options?: WriteOptions): Promise<BulkResponse> {
      const items = bulkItems(body);
      const key = options?.idempotencyKey;
      return key ? replay.once(key, "POST /contributions/bulk", () => bulk(items)) : bulk(items);
    },
    async getContribution(contributionId: string): Promise<Contribution> {
      const row = evidence.getContribution(String(contributionId));
      if (!row || !ctx.contexts.get(row.contextId)) throw errors.notFound("contribution", contributionId);
      return toApiContribution(row, deps.models.fieldNames(row.modelId));
    },
    async listContributions(query?: ListQuery): Promise<Page<Contribution>> {
      const page = evidence.listContributions(query ?? {});
      return { data: toApi(page.rows), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },
  };
}
