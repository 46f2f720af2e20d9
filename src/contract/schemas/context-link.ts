import { z } from "zod";
import { Id, Timestamp } from "./common.js";

/**
 * One link between two records of a context, as `GET /contexts/{id}/relationships`
 * lists them: the whole record graph of a case in one answer, with the links removed
 * through the API (which the pipeline will not make again) marked by `removedAt`.
 */
export const ContextLink = z.object({
  sourceRecordId: Id,
  relationshipName: z.string(),
  targetRecordId: Id,
  /** When the pipeline made the link (null for a removed link: its row is gone). */
  createdAt: Timestamp.nullable(),
  /** When it was removed through the API; null for a current link. */
  removedAt: Timestamp.nullable(),
});
/** A link of a context's record graph. */
export type ContextLink = z.infer<typeof ContextLink>;
