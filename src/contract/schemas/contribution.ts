import { z } from "zod";
import { CONTRIBUTION_STATUSES, SOURCE_TYPES } from "../constants.js";
import { Id, JsonObject, Timestamp } from "./common.js";
import { SourceType } from "./field.js";
import { isWellFormedContribution } from "../contribution-shape.js";

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

export { isWellFormedContribution };
