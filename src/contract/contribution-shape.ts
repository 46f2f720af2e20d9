import { SOURCE_TYPES } from "./constants.js";
import type { ContributionCreate } from "./schemas/contribution.js";

// Apart from the schema (zod), so ingest's fast path loads no zod until a body needs the schema.
const CREATE_KEYS = new Set(["contextId", "modelId", "sourceId", "sourceType", "data", "fieldConfidences", "recordId", "observedAt"]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SOURCE_TYPE_SET = new Set<unknown>(SOURCE_TYPES);

/** A plain object without an own `__proto__` key (the schema's records drop such keys silently). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && !Object.hasOwn(v, "__proto__");
}

/**
 * True when `body` certainly passes {@link ContributionCreate} as it is. Ingest checks
 * the common, well-formed item by hand (a few property tests in place of a schema walk
 * that cost more than the row's insert) and leaves the schema to explain everything
 * else; it never accepts what the schema would reject (a differential test holds it).
 */
export function isWellFormedContribution(body: unknown): body is ContributionCreate {
  if (!isPlainObject(body)) return false;
  for (const key in body) if (!CREATE_KEYS.has(key)) return false;
  const { contextId, modelId, sourceId, sourceType, data, fieldConfidences, recordId, observedAt } = body;
  if (typeof contextId !== "string" || !UUID.test(contextId) || typeof modelId !== "string" || !UUID.test(modelId)) return false;
  if (typeof sourceId !== "string" || sourceId.length < 1 || sourceId.length > 200 || !SOURCE_TYPE_SET.has(sourceType)) return false;
  if (!isPlainObject(data) || (recordId !== undefined && (typeof recordId !== "string" || !UUID.test(recordId)))) return false;
  if (observedAt !== undefined && typeof observedAt !== "string") return false;
  if (fieldConfidences !== undefined) {
    if (!isPlainObject(fieldConfidences)) return false;
    for (const key in fieldConfidences) if (typeof fieldConfidences[key] !== "number" || !Number.isFinite(fieldConfidences[key])) return false;
  }
  return true;
}
