/**
 * What a computed field's expression sees: the record's own fields by name and its
 * relationship paths (`employments.monthlyIncome`, `employments`).
 */
import type { CompiledField, CompiledRelationship } from "../../models/model-types.js";
import type { VarResolver } from "../../../portable/json-logic/index.js";
import type { PassRecord } from "../types.js";
import type { LinkGraph } from "./link-graph.js";
import type { ModelIndex } from "./model-index.js";
import { buildRecordData } from "./record-data.js";
import { hasOwn } from "./record-order.js";

/** Field values by record id, keyed by fieldId. */
export type ValueTable = Pick<ReadonlyMap<string, Record<string, unknown>>, "get">;

/** One field's value of a record, or undefined when it has none. */
export function valueOf(values: ValueTable, recordId: string, fieldId: string): unknown {
  const row = values.get(recordId);
  return row && hasOwn(row, fieldId) ? row[fieldId] : undefined;
}

/** How a resolver reads a record: its whole data by name, or one field's value. */
export interface RecordReader {
  data(record: PassRecord): Record<string, unknown>;
  /** The field's value, undefined when it has none. */
  value(record: PassRecord, field: CompiledField): unknown;
}

/** A reader over values keyed by fieldId (what the compute stage holds). */
export function valueTableReader(models: ModelIndex, values: ValueTable): RecordReader {
  return {
    data: (r) => {
      const info = models.byId.get(r.modelId);
      return info ? buildRecordData(info.model, values.get(r.id) ?? {}) : {};
    },
    value: (r, field) => valueOf(values, r.id, field.fieldId),
  };
}

/**
 * A relationship path from one source record: `rest` undefined gives the targets' data
 * (an array for `many`, one object for `one`), `rest` a field name gives that field (an
 * array over targets with null for a missing value for `many`, the value for `one`).
 * Undefined means "no value": no link for `one`, or an unknown target field.
 */
export function relationshipValue(
  rel: CompiledRelationship,
  targets: readonly PassRecord[],
  rest: string | undefined,
  models: ModelIndex,
  reader: RecordReader,
): unknown {
  const target = models.byId.get(rel.targetModelId);
  if (!target) return undefined;
  let pick: (r: PassRecord) => unknown = (r) => reader.data(r);
  if (rest !== undefined) {
    const field = target.fieldsByName.get(rest);
    if (!field) return undefined;
    pick = (r) => reader.value(r, field) ?? null;
  }
  if (rel.cardinality === "one") return targets.length === 0 ? undefined : pick(targets[0]);
  return targets.map(pick);
}

/**
 * The resolver of one record for its computed fields. Own fields win over relationships
 * (activation keeps the two sets of names apart anyway); anything else is undefined,
 * which `var` turns into null or its default.
 */
export function createRecordResolver(
  record: PassRecord,
  models: ModelIndex,
  links: LinkGraph,
  values: ValueTable,
): VarResolver {
  const info = models.byId.get(record.modelId);
  const reader = valueTableReader(models, values);
  return {
    get(path: string): unknown {
      if (!info) return undefined;
      if (path === "") return reader.data(record);
      const dot = path.indexOf(".");
      const head = dot === -1 ? path : path.slice(0, dot);
      const rest = dot === -1 ? undefined : path.slice(dot + 1);
      const field = rest === undefined ? info.fieldsByName.get(head) : undefined;
      if (field) return valueOf(values, record.id, field.fieldId);
      const rel = info.relationshipsByName.get(head);
      if (!rel) return undefined;
      return relationshipValue(rel, links.targets(record.id, rel.name), rest, models, reader);
    },
  };
}
