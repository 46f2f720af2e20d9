import type { ServerLogger } from "../server-log.js";
import type { Refusal } from "./limiter.js";

/** At most one log line per token per this long. */
export const LOG_EVERY_MS = 60_000;
const PRUNE_AT = 10_000;

/**
 * What the server does with a refusal: counts it (the metric, by limit and class) and logs
 * it, one `rate_limited` line per token per minute at most; the line says how many more
 * refusals of that token the minute before it held (`suppressed`). A runaway script
 * refused thousands of times a second writes one line a minute.
 */
export function refusalReporter(logger: ServerLogger | undefined, count?: (r: Refusal) => void, clock: () => number = Date.now): (r: Refusal) => void {
  const last = new Map<string, { at: number; suppressed: number }>();
  return (r) => {
    count?.(r);
    if (!logger) return;
    const now = clock();
    const seen = last.get(r.tokenId);
    if (seen && now - seen.at < LOG_EVERY_MS) {
      seen.suppressed++;
      return;
    }
    if (last.size >= PRUNE_AT) for (const [id, s] of last) if (now - s.at >= LOG_EVERY_MS) last.delete(id);
    last.set(r.tokenId, { at: now, suppressed: 0 });
    const fields = { workspace: r.workspace, tokenId: r.tokenId, limit: r.limit, class: r.class, cost: r.cost, retryAfter: r.retryAfter ?? null, suppressed: seen?.suppressed ?? 0 };
    logger.event("rate_limited", fields, "warn", `rate limited: token ${r.tokenId} of workspace ${r.workspace} over its ${r.limit}'s limit`);
  };
}
