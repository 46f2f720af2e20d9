/**
 * The link stage: relationships declared on models become links between records of the
 * context, minus the links a user removed (while their endpoints keep their identity).
 */
import type { CompiledModel, CompiledRelationship } from "../../models/model-types.js";
import type { LinkRemoval, PassLink } from "../types.js";
import { compareStrings } from "../../../portable/resolution/candidate.js";
import { canonicalJson } from "../../../portable/resolution/canonical-json.js";
import { compareRecordAge, hasOwn, indexModels, type RecordValues } from "./record-order.js";

function removalKey(sourceRecordId: string, name: string, targetRecordId: string): string {
  // JSON keeps the three parts apart whatever characters they hold.
  return JSON.stringify([sourceRecordId, name, targetRecordId]);
}

/** The value a match compares, or undefined when it matches nothing (null or absent). */
function matchKey(values: Record<string, unknown>, fieldId: string): string | undefined {
  const value = hasOwn(values, fieldId) ? values[fieldId] : undefined;
  return value === undefined || value === null ? undefined : canonicalJson(value);
}

/** Target records grouped by the match key of one field, built once per (model, field). */
type MatchIndex = Map<string, RecordValues[]>;

function buildMatchIndex(targets: readonly RecordValues[], fieldId: string): MatchIndex {
  const index: MatchIndex = new Map();
  for (const t of targets) {
    const key = matchKey(t.values, fieldId);
    if (key === undefined) continue;
    const list = index.get(key);
    if (list) list.push(t);
    else index.set(key, [t]);
  }
  return index;
}

/** The key of a relationship among a pass's links: its model and name. */
export function relationshipKey(modelId: string, name: string): string {
  return `${modelId}\u0000${name}`;
}

/** Links by relationship, and all of them sorted. */
export interface LinkedRecords {
  /** By {@link relationshipKey}, in the order made (sources in the order of `records`). */
  groups: Map<string, readonly PassLink[]>;
  /** Every link, sorted by sourceRecordId, name, targetRecordId. */
  links: readonly PassLink[];
}

/**
 * Links every record to the records its model's relationships reach: with `match`, the
 * targets whose target field deep-equals (canonical JSON) the source field, a null or
 * absent source value matching nothing; without `match`, every record of the target
 * model. A record never links to itself. A removal excludes its link only while both
 * endpoints still have the identityKeys recorded with it. Removed links are dropped
 * before a `one` relationship keeps its best remaining match: the oldest record, then the
 * smallest id. Output is sorted by sourceRecordId, name, targetRecordId.
 */
export function linkRecords(
  models: readonly CompiledModel[],
  records: readonly RecordValues[],
  removals: readonly LinkRemoval[],
): PassLink[] {
  return [...linkRelationships(models, records, removals).links];
}

/**
 * {@link linkRecords} by relationship. A relationship for which `kept.links` gives links
 * takes those instead of being worked out again (the caller vouches that they are what it
 * would give: nothing it links changed since they were made); when every one is kept, the
 * answer is `kept.sorted`, the last pass's sorted links.
 */
export function linkRelationships(
  models: readonly CompiledModel[],
  records: readonly RecordValues[],
  removals: readonly LinkRemoval[],
  kept?: { links: (modelId: string, rel: CompiledRelationship) => readonly PassLink[] | undefined; sorted: readonly PassLink[] },
): LinkedRecords {
  const byModel = new Map<string, RecordValues[]>();
  for (const r of records) {
    const list = byModel.get(r.record.modelId);
    if (list) list.push(r);
    else byModel.set(r.record.modelId, [r]);
  }
  const removed = new Map<string, LinkRemoval>();
  for (const r of removals) removed.set(removalKey(r.sourceRecordId, r.name, r.targetRecordId), r);
  const isRemoved = (source: RecordValues, name: string, target: RecordValues): boolean => {
    // Most contexts have no removals: no key is built for each candidate link then.
    if (removed.size === 0) return false;
    const removal = removed.get(removalKey(source.record.id, name, target.record.id));
    return (
      removal !== undefined &&
      removal.sourceIdentity === source.record.identityKey &&
      removal.targetIdentity === target.record.identityKey
    );
  };

  const matchIndexes = new Map<string, MatchIndex>();
  /** The targets of one relationship for one source, before removals and cardinality. */
  const candidatesFor = (source: RecordValues, rel: CompiledRelationship): RecordValues[] => {
    const all = byModel.get(rel.targetModelId) ?? [];
    let matched: readonly RecordValues[] = all;
    if (rel.match) {
      const wanted = matchKey(source.values, rel.match.sourceFieldId);
      if (wanted === undefined) return [];
      const indexKey = `${rel.targetModelId}:${rel.match.targetFieldId}`;
      let index = matchIndexes.get(indexKey);
      if (!index) matchIndexes.set(indexKey, (index = buildMatchIndex(all, rel.match.targetFieldId)));
      matched = index.get(wanted) ?? [];
    }
    return matched.filter((t) => t.record.id !== source.record.id && !isRemoved(source, rel.name, t));
  };

  const groups = new Map<string, readonly PassLink[]>();
  let allKept = true;
  for (const model of indexModels(models).values()) {
    for (const rel of model.relationships) {
      const key = relationshipKey(model.modelId, rel.name);
      const previous = kept?.links(model.modelId, rel);
      if (previous) {
        groups.set(key, previous);
        continue;
      }
      allKept = false;
      const group: PassLink[] = [];
      for (const source of byModel.get(model.modelId) ?? []) {
        const targets = candidatesFor(source, rel);
        if (rel.cardinality === "one" && targets.length > 1) {
          targets.sort((a, b) => compareRecordAge(a.record, b.record));
          targets.length = 1;
        }
        for (const t of targets) {
          group.push({ sourceRecordId: source.record.id, name: rel.name, targetRecordId: t.record.id, targetModelId: rel.targetModelId });
        }
      }
      groups.set(key, group);
    }
  }
  if (allKept && kept) return { groups, links: kept.sorted };
  const links: PassLink[] = [];
  for (const group of groups.values()) for (const l of group) links.push(l);
  return { groups, links: sortLinks(links) };
}

/** Links in their output order. */
function sortLinks(links: PassLink[]): PassLink[] {
  return links.sort(
    (a, b) =>
      compareStrings(a.sourceRecordId, b.sourceRecordId) ||
      compareStrings(a.name, b.name) ||
      compareStrings(a.targetRecordId, b.targetRecordId),
  );
}
