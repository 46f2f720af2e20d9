import { createHash } from "node:crypto";
import type { CompiledModel } from "../models/model-types.js";
import type { PassRecord, RecordState } from "../pipeline/types.js";

// Pure helpers of loadPasses (pass-load.ts): no database here.

/** A row of a statement that reads several contexts at once: `c` is its context's key. */
export type Keyed = { c: number };
/** A compiled model as the definitions query reads it. */
export type ModelRow = { ws: number; key: number; stamp: string; compiled: string };

/** Rows by their context's key, in the order read. */
export const groupBy = <T extends Keyed>(rows: T[]): Map<number, T[]> => {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const c = Number(r.c);
    let list = out.get(c);
    if (!list) out.set(c, (list = []));
    list.push(r);
  }
  return out;
};

/** The stamp of a workspace's definitions: its compiled models' keys, versions and update times, hashed. */
export function definitionsStamp(models: readonly ModelRow[]): string {
  const text = models
    .map((m) => `${Number(m.key)}:${m.stamp}`)
    .sort()
    .join(",");
  return createHash("sha256").update(text).digest("hex").slice(0, 24);
}

/** True when a record's outcome may depend on other records: relationships or computed fields. */
export const joinsRecords = (models: readonly CompiledModel[]) => models.some((m) => m.relationships.length > 0 || m.fields.some((f) => f.computed));

/**
 * A clean record's state from what is stored of it: its data by name back to values by
 * fieldId (the definitions are those it was resolved with, so the names are current).
 */
export function storedState(record: PassRecord, model: CompiledModel, r: { data?: string | null; sha256: string | null; issues: string | null; lineage: string | null }): RecordState {
  const data = JSON.parse(r.data!) as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  const base: Record<string, unknown> = {};
  for (const field of model.fields) {
    if (!Object.prototype.hasOwnProperty.call(data, field.name)) continue;
    values[field.fieldId] = data[field.name];
    if (!field.computed) base[field.fieldId] = data[field.name];
  }
  return { record, base, baseLineage: undefined, values, data, sha256: r.sha256!, issues: r.issues ?? "[]", lineage: r.lineage ?? "{}" };
}
