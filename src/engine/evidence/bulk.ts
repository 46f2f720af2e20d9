import { DdsError, errors } from "../../contract/errors.js";
import { assertJsonValue } from "../../contract/json-limits.js";
import { BULK_MAX_ITEMS } from "../../contract/constants.js";
import type { BulkResponse } from "../../contract/schemas/index.js";
import { answerStatus } from "../../contract/answer-status.js";

/**
 * Checks a bulk body's envelope: an object with `items`, 1..100 of them (else 400, nothing
 * processed), and the JSON limits of the whole body: its items need no second walk.
 */
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
  assertJsonValue(body, "bulk body");
  return items;
}

/** The bulk answer from each item's result (`undefined` = no body) or error; an item's status is `status` unless its answer says otherwise (see answer-status.ts). */
export function bulkResponse(outcomes: readonly unknown[], status: number): BulkResponse {
  const items: BulkResponse["items"] = outcomes.map((o, index) => {
    if (o instanceof DdsError) return { index, status: o.status, error: o.toProblem() };
    return o === undefined ? { index, status } : { index, status: answerStatus(o) ?? status, data: o };
  });
  const failed = items.filter((r) => r.error).length;
  return { items, summary: { total: outcomes.length, succeeded: outcomes.length - failed, failed } };
}

/**
 * Processes items independently inside the caller's transaction: each item runs in its
 * own savepoint (`tx` of the scope handed in), so a failing item leaves nothing behind
 * while the others commit together. `status` is the HTTP status the item would have had
 * alone. An error that is not a DdsError (a bug, a lost database) fails the whole batch.
 */
export async function runBulk<S extends { tx<T>(fn: (s: S) => Promise<T>): Promise<T> }>(
  s: S,
  items: unknown[],
  status: number,
  handle: (s: S, item: unknown, index: number) => Promise<unknown>,
): Promise<BulkResponse> {
  const outcomes: unknown[] = [];
  for (let index = 0; index < items.length; index++) {
    try {
      outcomes.push(await s.tx((inner) => handle(inner, items[index], index)));
    } catch (err) {
      if (!(err instanceof DdsError)) throw err;
      outcomes.push(err);
    }
  }
  return bulkResponse(outcomes, status);
}
