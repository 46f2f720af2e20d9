import { z } from "zod";
import { CONTEXT_STATUSES, FRESHNESS } from "../constants.js";
import { Id, JsonObject, Timestamp } from "./common.js";

export const ContextStatus = z.enum(CONTEXT_STATUSES);
export type ContextStatus = z.infer<typeof ContextStatus>;

export const Freshness = z.enum(FRESHNESS);
export type Freshness = z.infer<typeof Freshness>;

/** Body of POST /contexts (every property optional). */
export const ContextCreate = z.strictObject({
  name: z.string().max(200).nullish(),
  type: z.string().max(100).nullish(),
  metadata: JsonObject.nullish(),
});
export type ContextCreate = z.infer<typeof ContextCreate>;

/** Body of PATCH /contexts/{id}: name, type and metadata only (its own schema, so the document names it). */
export const ContextPatch = ContextCreate.extend({});
export type ContextPatch = ContextCreate;

/** The `include=summary` block (docs/resources.md). */
export const ContextSummary = z.object({
  records: z.object({ total: z.number().int(), byModel: z.record(z.string(), z.number().int()) }),
  evaluations: z.object({
    total: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    stale: z.number().int(),
  }),
  stale: z.object({ records: z.number().int(), evaluations: z.number().int() }),
  lastResolvedAt: Timestamp.nullable(),
});
export type ContextSummary = z.infer<typeof ContextSummary>;

/** A decisioning context as the API returns it. */
export const Context = z.object({
  contextId: Id,
  name: z.string().nullable(),
  type: z.string().nullable(),
  metadata: JsonObject,
  status: ContextStatus,
  freshness: Freshness,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  resolvedAt: Timestamp.nullable(),
  summary: ContextSummary.optional(),
});
export type Context = z.infer<typeof Context>;

export { CONTEXT_STATUSES, FRESHNESS };
