import type { ListQuery } from "../../../contract/list-query.js";
import type { Context, DdsRecord, Page } from "../../../contract/schemas/index.js";
import type { DdsService } from "../../../contract/service.js";
import type { NdjsonSink } from "../../ndjson/ndjson-sink.js";
import { contextLine, contextRefOf, contributionLine, dependencyOrder, evaluationLine, modelLine, recordLine, ruleLine } from "./export-lines.js";
import { allModels } from "../../../portable/workbench/trace/lineage-reader.js";

/** Lines written, by kind, and contributions left out (their record was deleted). */
export interface ExportCounts {
  models: number;
  rules: number;
  contexts: number;
  contributions: number;
  records: number;
  evaluations: number;
  /** Contributions of deleted records: they no longer count, so they are not exported. */
  omitted: number;
}

/** Every item of a list, page by page (500 at a time). */
export async function* everyItem<T>(fetch: (q: ListQuery) => Promise<Page<T>>, query: ListQuery = {}): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetch({ ...query, limit: 500, ...(cursor ? { cursor } : {}) });
    yield* page.data;
    cursor = page.hasNextPage && page.nextCursor ? page.nextCursor : undefined;
  } while (cursor);
}

const pick = (data: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => k in data).map((k) => [k, data[k]]));

/**
 * Writes the export: the workspace's models (targets first) and rules, then per context
 * its Context line, its contributions in receivedAt order (so a superseding one follows
 * the one it supersedes and a reimport ends in the same state), its records and its
 * evaluations. One context is held in memory at a time.
 */
export async function runExport(service: DdsService, contexts: AsyncIterable<Context>, sink: NdjsonSink): Promise<ExportCounts> {
  const counts: ExportCounts = { models: 0, rules: 0, contexts: 0, contributions: 0, records: 0, evaluations: 0, omitted: 0 };
  const models = await allModels(service);
  const byId = new Map(models.map((m) => [m.modelId, m]));
  const byName = new Map(models.map((m) => [m.name, m]));
  const nameOf = (ref: string) => byId.get(ref.toLowerCase())?.name ?? ref;
  for (const m of dependencyOrder(models, (ref) => byId.get(ref.toLowerCase())?.modelId ?? byName.get(ref)?.modelId)) {
    await sink.write(modelLine(m, nameOf));
    counts.models++;
  }
  for await (const rule of everyItem((q) => service.listRules(q))) {
    await sink.write(ruleLine(rule));
    counts.rules++;
  }
  for await (const context of contexts) {
    const ref = contextRefOf(context);
    await sink.write(contextLine(context));
    counts.contexts++;
    const inContext = [{ field: "contextId", op: "eq" as const, value: context.contextId }];
    const records = new Map<string, DdsRecord>();
    for await (const r of everyItem((q) => service.listRecords(q), { filters: inContext })) records.set(r.recordId, r);
    const identities = new Map<string, Record<string, unknown>>();
    const contributions = everyItem((q) => service.listContributions(q), { filters: inContext, sort: [{ field: "receivedAt", desc: false }] });
    for await (const c of contributions) {
      const record = records.get(c.recordId);
      if (!record) {
        counts.omitted++;
        continue;
      }
      const model = byId.get(c.modelId);
      const identity = model?.identity ?? [];
      let fill: Record<string, unknown> | undefined;
      if (identity.some((k) => !(k in c.data))) {
        // A record update (a manual contribution) carries no identity: take the record's.
        fill = identities.get(c.recordId) ?? pick(record.data, identity);
      } else if (identity.length > 0 && !identities.has(c.recordId)) {
        identities.set(c.recordId, pick(c.data, identity));
      }
      await sink.write(contributionLine(c, ref, model?.name ?? c.modelId, fill));
      counts.contributions++;
    }
    for (const r of records.values()) {
      await sink.write(recordLine(r, ref, nameOf(r.modelId)));
      counts.records++;
    }
    for await (const e of everyItem((q) => service.listContextEvaluations(context.contextId, q))) {
      await sink.write(evaluationLine(e, ref));
      counts.evaluations++;
    }
  }
  return counts;
}
