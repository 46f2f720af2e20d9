/** Links as a lookup: a source record's targets through one relationship, oldest first. */
import type { PassLink, PassRecord } from "../types.js";
import { compareRecordAge } from "./record-order.js";

/** Read access to the links of a pass. */
export interface LinkGraph {
  /** Target records of `sourceRecordId` through `name`, ordered by createdAt then id. */
  targets(sourceRecordId: string, name: string): readonly PassRecord[];
}

const NONE: readonly PassRecord[] = Object.freeze([]);

/** Indexes `links` over `records` (links to unknown records are ignored). */
export function createLinkGraph(records: readonly PassRecord[], links: readonly PassLink[]): LinkGraph {
  const byId = new Map(records.map((r) => [r.id, r]));
  const index = new Map<string, PassRecord[]>();
  for (const link of links) {
    const target = byId.get(link.targetRecordId);
    if (!target) continue;
    const key = JSON.stringify([link.sourceRecordId, link.name]);
    const list = index.get(key);
    if (list) list.push(target);
    else index.set(key, [target]);
  }
  for (const list of index.values()) list.sort(compareRecordAge);
  return { targets: (sourceRecordId, name) => index.get(JSON.stringify([sourceRecordId, name])) ?? NONE };
}
