import { z } from "zod";
import { Id, JsonObject } from "./common.js";
import { ContributionCreate } from "./contribution.js";
import { ProblemSchema } from "./problem.js";

import { BULK_MAX_ITEMS } from "../constants.js";

export { BULK_MAX_ITEMS };
/** Largest JSON body a request may carry, in bytes (interface, Limits). */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export const RecordUpdateItem = z.strictObject({ recordId: Id, data: JsonObject });
export type RecordUpdateItem = z.infer<typeof RecordUpdateItem>;
export const RecordDeleteItem = z.strictObject({ recordId: Id });
export type RecordDeleteItem = z.infer<typeof RecordDeleteItem>;

/**
 * A bulk body. Items are validated one by one by the engine (partial success), so the
 * envelope only checks that `items` is an array of 1..100 entries.
 */
export const BulkBody = z.strictObject({ items: z.array(z.unknown()) });
export type BulkBody = z.infer<typeof BulkBody>;

/** Per-item outcome: `status` is the HTTP status the item would have had alone. */
export const BulkItemResult = z.object({
  index: z.number().int(),
  status: z
    .number()
    .int()
    .describe("the HTTP status the item would have had alone: 201 created; 200 updated, deleted, or a contribution unchanged (equal to its source's current one, answered with that one); 4xx with its problem in error"),
  data: z.unknown().optional(),
  error: ProblemSchema.optional(),
});
export type BulkItemResult = z.infer<typeof BulkItemResult>;

/** Response of every bulk endpoint (200). */
export const BulkResponse = z.object({
  items: z.array(BulkItemResult),
  summary: z.object({ total: z.number().int(), succeeded: z.number().int(), failed: z.number().int() }),
});
export type BulkResponse = z.infer<typeof BulkResponse>;

export { ContributionCreate as ContributionBulkItem };
