import type { Model } from "../../../contract/schemas/index.js";
import { recordOrderKey } from "../../ndjson/dispatcher.js";
import type { LineObject } from "./line-parse.js";

/**
 * The order key of a contribution line: the record it will bind to when that can be told
 * from the line (the context, the model, and the identity values, or the context and a
 * model without identity), else its whole context. Lines of one record then reach the
 * service in file order, while lines of other records (an interleaved file where every
 * line is a new entity) need not wait for each other. Identity values are compared as
 * text, as loosely as the service's own coercion or more (`123` and `"123"` are one key).
 */
export function contributionOrderKey(item: LineObject, model: Model | undefined): string | undefined {
  const context = typeof item.contextId === "string" ? item.contextId.toLowerCase() : undefined;
  if (context === undefined) return undefined;
  // An explicit record may also be reached by identity elsewhere in the file: whole context.
  if (item.recordId !== undefined || !model) return context;
  const data = item.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return context;
  const values: string[] = [];
  for (const name of model.identity) {
    const v = (data as Record<string, unknown>)[name];
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") return context;
    values.push(String(v).trim());
  }
  return recordOrderKey(context, JSON.stringify([model.modelId, ...values]));
}
