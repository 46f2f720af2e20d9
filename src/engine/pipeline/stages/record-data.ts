/** A record's `data`: its values keyed by the current field names. */
import type { CompiledModel } from "../../models/model-types.js";
import { hasOwn } from "./record-order.js";

/**
 * The record data of `values` (keyed by fieldId): keys are current field names in field
 * order; fields without a value are omitted, fields resolved to null are kept.
 */
export function buildRecordData(model: CompiledModel, values: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const field of model.fields) {
    const value = hasOwn(values, field.fieldId) ? values[field.fieldId] : undefined;
    if (value !== undefined) data[field.name] = value;
  }
  return data;
}
