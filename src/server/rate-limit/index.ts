import { createRateBudgets, type App } from "../../engine/index.js";
import { createMemoryLedger } from "./ledger.js";
import { createRateLimiter, type RateLimiter, type RateLimits, type Refusal } from "./limiter.js";
import { createSharedLedger } from "./shared-ledger.js";

export { createRateLimiter, type RateLimiter, type RateLimits, type RateSubject, type Refusal, type Verdict } from "./limiter.js";

/** A monotonic clock in milliseconds (a wall clock set back must not refill a budget). */
const monotonic = () => performance.now();

/**
 * The limiter of a server on `app`'s database: budgets shared through the database on
 * PostgreSQL (every node one budget), in this process's memory on SQLite (one node).
 */
export function createAppRateLimiter(app: App, limits: RateLimits, onRefused?: (r: Refusal) => void, onError?: (err: unknown) => void): RateLimiter {
  const source = createRateBudgets(app.store);
  const ledger = source ? createSharedLedger({ source, clock: monotonic, onError }) : createMemoryLedger(monotonic);
  return createRateLimiter({ limits, ledger, onRefused });
}
