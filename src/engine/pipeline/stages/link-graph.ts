/** Links as a lookup: a source record's targets through one relationship, oldest first. */
import type { PassLink, PassRecord } from "../types.js";
import { compareRecordAge } from "./record-order.js";

/** Targets by source record id, for one relationship name. */
export type TargetsBySource = ReadonlyMap<string, readonly PassRecord[]>;

/** Read access to the links of a pass. */
export interface LinkGraph {
  /** Target records of `sourceRecordId` through `name`, ordered by createdAt then id. */
  targets(sourceRecordId: string, name: string): readonly PassRecord[];
  /** The index, by relationship name (what the next pass may keep of it). */
  readonly byName: ReadonlyMap<string, TargetsBySource>;
}

const NONE: readonly PassRecord[] = Object.freeze([]);

/**
 * Indexes `links` over `records` (links to unknown records are ignored). Keyed by
 * relationship name, then by source record: a key built per link and per lookup (the two
 * joined in a string) cost a tenth of a pass over a context of 2,000 records after one
 * contribution. The names in `kept` take their index from there instead, and their links
 * are not read: a pass keeps what the last one built where nothing it links changed.
 */
export function createLinkGraph(
  records: readonly PassRecord[],
  links: readonly PassLink[],
  kept?: { names: ReadonlySet<string>; from: ReadonlyMap<string, TargetsBySource> },
): LinkGraph {
  // Built at the first link read: a pass that keeps every name reads none.
  let byId: Map<string, PassRecord> | undefined;
  const index = new Map<string, TargetsBySource>();
  const built = new Map<string, Map<string, PassRecord[]>>();
  for (const name of kept?.names ?? []) {
    const from = kept!.from.get(name);
    if (from) index.set(name, from);
  }
  for (const link of links) {
    if (kept?.names.has(link.name)) continue;
    byId ??= new Map(records.map((r) => [r.id, r]));
    const target = byId.get(link.targetRecordId);
    if (!target) continue;
    let bySource = built.get(link.name);
    if (!bySource) {
      built.set(link.name, (bySource = new Map()));
      index.set(link.name, bySource);
    }
    const list = bySource.get(link.sourceRecordId);
    if (list) list.push(target);
    else bySource.set(link.sourceRecordId, [target]);
  }
  for (const bySource of built.values()) for (const list of bySource.values()) if (list.length > 1) list.sort(compareRecordAge);
  return { targets: (sourceRecordId, name) => index.get(name)?.get(sourceRecordId) ?? NONE, byName: index };
}
