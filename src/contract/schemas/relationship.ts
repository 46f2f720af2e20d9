import { z } from "zod";
import { Id, Timestamp } from "./common.js";

/** One link of the record graph, as seen from its source record. */
export const RelationshipLink = z.object({
  relationshipName: z.string(),
  targetRecordId: Id,
  targetModelId: Id,
  targetModelName: z.string(),
  createdAt: Timestamp,
});
export type RelationshipLink = z.infer<typeof RelationshipLink>;
