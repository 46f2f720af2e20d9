import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import type { BulkResponse, Contribution, Page } from "../../contract/schemas/index.js";
import type { WriteOptions } from "../../contract/service.js";
import { createReplayRepo } from "../store/replay-repo.js";
import { bulkItems, runBulk } from "./bulk.js";
import { toApiContribution } from "./contribution-view.js";
import { createIngestWriter, ingestOne, type IngestDeps } from "./ingest.js";

/** Contribution operations of the service. */
export function createContributionService(deps: IngestDeps) {
  const { ctx, evidence } = deps;
  const replay = createReplayRepo(ctx.store, ctx.workspace);

  const bulk = (items: unknown[]): BulkResponse => {
    // Items are checked one by one (a failing one changes nothing, so no savepoints) and
    // written together before the transaction commits.
    const writer = createIngestWriter(deps);
    return runBulk(ctx.store.tx, (fn) => fn(), items, 201, (item) => writer.add(item), () => writer.flush());
  };

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
      const names = new Map<string, Map<string, string>>();
      const data = page.rows.map((row) => {
        let n = names.get(row.modelId);
        if (!n) names.set(row.modelId, (n = deps.models.fieldNames(row.modelId)));
        return toApiContribution(row, n);
      });
      return { data, nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },
  };
}
