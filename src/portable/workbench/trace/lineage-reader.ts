/**
 * Cached reads of what explaining a value needs: models by name, a context's records per
 * model, records with lineage, related records. One reader serves one command run, so a
 * trace that reads `Applicant.creditScore` and `Applicant.income` fetches each record once.
 */
import type { ListQuery } from "../../../contract/list-query.js";
import type { Contribution, DdsRecord, Model } from "../../../contract/schemas/index.js";
import type { DdsService } from "../../../contract/service.js";
import { pushAll } from "../../arrays.js";

/** Every page of a `{data, nextCursor, hasNextPage}` list. */
export async function allPages<T>(fetch: (q: ListQuery) => Promise<{ data: T[]; nextCursor: string | null; hasNextPage: boolean }>, query: ListQuery = {}): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await fetch({ ...query, limit: 500, ...(cursor ? { cursor } : {}) });
    pushAll(out, page.data);
    if (!page.hasNextPage || !page.nextCursor) return out;
    cursor = page.nextCursor;
  }
}

/** Every model (the model list has its own envelope). */
export async function allModels(service: DdsService): Promise<Model[]> {
  return allPages(async (q) => {
    const page = await service.listModels(q);
    return { data: page.models, nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
  });
}

/** Records oldest first, then by id: the order rule paths over records use. */
export function compareRecordAge(a: DdsRecord, b: DdsRecord): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.recordId < b.recordId ? -1 : a.recordId > b.recordId ? 1 : 0;
}

/** The cached reads of one command run. */
export class LineageReader {
  private models?: Promise<Model[]>;
  private readonly records = new Map<string, Promise<DdsRecord>>();
  private readonly byModel = new Map<string, Promise<DdsRecord[]>>();
  private readonly related = new Map<string, Promise<DdsRecord[]>>();
  private readonly listed = new Map<string, Promise<DdsRecord[]>>();
  private readonly linked = new Map<string, Promise<DdsRecord[]>>();
  private readonly contributions = new Map<string, Promise<Contribution[]>>();

  constructor(readonly service: DdsService) {}

  /** Every model. */
  allModels(): Promise<Model[]> {
    return (this.models ??= allModels(this.service));
  }

  /** A model by name or id (undefined when none). */
  async model(ref: string): Promise<Model | undefined> {
    return (await this.allModels()).find((m) => m.name === ref || m.modelId === ref);
  }

  /** A record with its lineage and model. */
  record(recordId: string): Promise<DdsRecord> {
    let r = this.records.get(recordId);
    if (!r) this.records.set(recordId, (r = this.service.getRecord(recordId, { include: ["lineage", "model"] })));
    return r;
  }

  /** The records of one model in one context, oldest first, with lineage. */
  recordsOf(contextId: string, modelId: string): Promise<DdsRecord[]> {
    const key = `${contextId}/${modelId}`;
    let r = this.byModel.get(key);
    if (!r) this.byModel.set(key, (r = this.listedOf(contextId, modelId).then((list) => Promise.all(list.map((x) => this.record(x.recordId))))));
    return r;
  }

  /** The records of one model in one context, oldest first, as the list gives them (no lineage: a page per 500). */
  listedOf(contextId: string, modelId: string): Promise<DdsRecord[]> {
    const key = `${contextId}/${modelId}`;
    let r = this.listed.get(key);
    if (!r) {
      const filters = [
        { field: "contextId", op: "eq" as const, value: contextId },
        { field: "modelId", op: "eq" as const, value: modelId },
      ];
      this.listed.set(key, (r = allPages((q) => this.service.listRecords(q), { filters }).then((list) => list.sort(compareRecordAge))));
    }
    return r;
  }

  /** The records linked from `recordId` by `relationship`, oldest first (as rule paths read them), with lineage. */
  relatedTo(recordId: string, relationship: string): Promise<DdsRecord[]> {
    const key = `${recordId}/${relationship}`;
    let r = this.related.get(key);
    if (!r) this.related.set(key, (r = this.linkedTo(recordId, relationship).then((list) => Promise.all(list.map((x) => this.record(x.recordId))))));
    return r;
  }

  /** The records linked from `recordId` by `relationship`, oldest first, as the list gives them (no lineage). */
  linkedTo(recordId: string, relationship: string): Promise<DdsRecord[]> {
    const key = `${recordId}/${relationship}`;
    let r = this.linked.get(key);
    if (!r) this.linked.set(key, (r = this.service.listRelatedRecords(recordId, relationship).then((page) => [...page.data].sort(compareRecordAge))));
    return r;
  }

  /** Every contribution bound to a record (accepted and superseded), oldest first. */
  contributionsOf(recordId: string): Promise<Contribution[]> {
    let r = this.contributions.get(recordId);
    if (!r) {
      r = allPages((q) => this.service.listContributions(q), { filters: [{ field: "recordId", op: "eq", value: recordId }] });
      this.contributions.set(recordId, r);
    }
    return r;
  }
}
