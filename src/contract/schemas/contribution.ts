import { z } from "zod";
import { CONTRIBUTION_STATUSES, SOURCE_TYPES } from "../constants.js";
import { Id, JsonObject, Timestamp } from "./common.js";
import { SourceType } from "./field.js";

/** Body of POST /contributions and one item of POST /contributions/bulk. */
export const ContributionCreate = z.strictObject({
  contextId: Id,
  modelId: Id,
  sourceId: z.string().min(1).max(200),
  sourceType: SourceType,
  data: JsonObject,
  fieldConfidences: z.record(z.string(), z.number()).optional(),
  recordId: Id.optional(),
  observedAt: z.string().optional(),
});
export type ContributionCreate = z.infer<typeof ContributionCreate>;


/** A contribution as the API returns it. */
export const Contribution = z.object({
  contributionId: Id,
  contextId: Id,
  modelId: Id,
  recordId: Id,
  sourceId: z.string(),
  sourceType: SourceType,
  data: JsonObject,
  fieldConfidences: z.record(z.string(), z.number()),
  status: z.enum(CONTRIBUTION_STATUSES),
  supersedes: Id.nullable(),
  observedAt: Timestamp.nullable(),
  receivedAt: Timestamp,
  createdBy: z.string(),
});
export type Contribution = z.infer<typeof Contribution>;

export { CONTRIBUTION_STATUSES };

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
