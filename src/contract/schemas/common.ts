import { z } from "zod";
import { FORBIDDEN_SEGMENTS } from "../constants.js";

/** A lowercase UUID (ids are always emitted lowercase). */
export const Id = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "must be a UUID");

/** ISO 8601 UTC timestamp with milliseconds. */
export const Timestamp = z.string().describe("ISO 8601 UTC timestamp");

/** Any JSON value (used for record data, JSON Logic and metadata values). */
export const JsonValue: z.ZodType<unknown> = z.unknown();

/** An object of free-form JSON values keyed by string. */
export const JsonObject = z.record(z.string(), z.unknown());

export { FORBIDDEN_SEGMENTS };

/** A human-readable name usable as a path segment: no dots, not an object internal. */
export const SegmentName = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .refine((s) => !s.includes("."), "must not contain '.' (names are used in dotted paths)")
  .refine((s) => !FORBIDDEN_SEGMENTS.has(s), "is a reserved name");

/** Envelope of every list but the model list (docs/rest-api.md). */
export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    nextCursor: z.string().nullable(),
    hasNextPage: z.boolean(),
  });
}

/** A list page as the engine returns it, before it is put into its envelope. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasNextPage: boolean;
}
