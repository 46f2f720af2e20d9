import { DdsError, errors } from "../../contract/errors.js";
import { assertJsonValue, markJsonChecked } from "../../contract/json-limits.js";
import { BULK_MAX_ITEMS, type BulkResponse } from "../../contract/schemas/index.js";

/** Checks a bulk body's envelope: an object with `items`, 1..100 of them (else 400, nothing processed). */
export function bulkItems(body: unknown): unknown[] {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw errors.invalid("bulk body must be an object with an items array");
  const extra = Object.keys(body).filter((k) => k !== "items");
  if (extra.length > 0) throw errors.invalid(`bulk body has unknown propert${extra.length > 1 ? "ies" : "y"} ${extra.map((k) => `"${k}"`).join(", ")}`);
  const items = (body as { items?: unknown }).items;
  if (!Array.isArray(items)) throw errors.invalid("bulk body must have an items array");
  if (items.length === 0) throw errors.invalid("items must not be empty");
  if (items.length > BULK_MAX_ITEMS) {
    throw new DdsError("bulk_limit_exceeded", `a bulk request takes at most ${BULK_MAX_ITEMS} items, got ${items.length}`);
  }
  // The JSON limits hold for the whole body; its items need no second walk.
  assertJsonValue(body, "bulk body");
  markJsonChecked(items);
  return items;
}

/**
 * Processes items independently inside one transaction: each item runs in its own
 * savepoint, so a failing item leaves nothing behind while the others commit together.
 * `status` is the HTTP status the item would have had alone.
 */
export function runBulk(
  tx: <T>(fn: () => T) => T,
  savepoint: <T>(fn: () => T) => T,
  items: unknown[],
  status: number,
  handle: (item: unknown, index: number) => unknown,
  /** Runs after the last item, inside the transaction (writes what the items planned). */
  finish?: () => void,
): BulkResponse {
  const results: BulkResponse["items"] = [];
  tx(() => {
    items.forEach((item, index) => {
      try {
        const data = savepoint(() => handle(item, index));
        results.push(data === undefined ? { index, status } : { index, status, data });
      } catch (err) {
        const e = err instanceof DdsError ? err : new DdsError("internal_error", "item failed unexpectedly");
        if (!(err instanceof DdsError)) throw err;
        results.push({ index, status: e.status, error: e.toProblem() });
      }
    });
    finish?.();
  });
  const failed = results.filter((r) => r.error).length;
  return { items: results, summary: { total: items.length, succeeded: items.length - failed, failed } };
}
