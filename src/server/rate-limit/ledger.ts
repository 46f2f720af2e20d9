import { MAX_WINDOW_SECONDS } from "../../contract/rate-limit.js";
import { debtAt, remainingOf, resetSeconds, waitFor, type Budget, type Debt } from "./bucket.js";

/** One budget a request takes from: its key (`w:<workspace>`, `t:<tokenId>`) and its limit. */
export interface KeyBudget {
  key: string;
  budget: Budget;
}

/** How one budget stands after a take (or a refused one). */
export interface KeyReading {
  /** Units left. */
  remaining: number;
  /** Seconds until the budget is full again. */
  resetSeconds: number;
  /** Milliseconds until the request's cost would fit (0 when it did). */
  waitMs: number;
  /** The cost is more than the whole quota. */
  never: boolean;
}

/** A take's outcome: admitted (every budget paid) or not (none paid), and each budget's reading. */
export interface LedgerAnswer {
  admitted: boolean;
  readings: KeyReading[];
}

/**
 * Where budgets are kept. A take pays `cost` from every budget or from none; it is
 * synchronous whenever the ledger can decide alone (the read lane's speed depends on it).
 */
export interface Ledger {
  take(keys: readonly KeyBudget[], cost: number): LedgerAnswer | Promise<LedgerAnswer>;
  /** Gives back what the ledger holds and stops its timers. */
  close(): Promise<void>;
}

/** Budgets kept before the memory ledger forgets the full ones. */
const PRUNE_AT = 10_000;

/**
 * The budgets of one process, in memory (SQLite: one node holds every budget). A take
 * checks every budget first and pays only when all of them fit, so a request refused by
 * its token's limit costs its workspace nothing, and the other way round.
 */
export function createMemoryLedger(clock: () => number): Ledger {
  const debts = new Map<string, Debt>();
  // Each budget's debt record and what it owes now, kept between the two loops of one take
  // (a take runs to its end synchronously, so one pair of arrays serves every take).
  const found: (Debt | undefined)[] = [];
  const owing: number[] = [];
  return {
    // Plain loops, and a budget's debt record updated in place: every read of the read lane comes through here.
    take(keys, cost) {
      const now = clock();
      let admitted = true;
      for (let i = 0; i < keys.length; i++) {
        const d = debts.get(keys[i].key);
        found[i] = d;
        owing[i] = d === undefined ? 0 : debtAt(keys[i].budget, d, now);
        if (waitFor(keys[i].budget, owing[i], cost) !== 0) admitted = false;
      }
      if (admitted) {
        // A budget untouched for the longest window owes nothing: forgetting it changes nothing.
        if (debts.size >= PRUNE_AT) {
          for (const [key, d] of debts) if (d.at < now - MAX_WINDOW_SECONDS * 1000) debts.delete(key);
          for (let i = 0; i < keys.length; i++) if (found[i] !== undefined && !debts.has(keys[i].key)) found[i] = undefined;
        }
        for (let i = 0; i < keys.length; i++) {
          const d = found[i];
          if (d === undefined) debts.set(keys[i].key, { debt: owing[i] + cost, at: now });
          else {
            d.debt = owing[i] + cost;
            d.at = now;
          }
        }
      }
      const readings = new Array<KeyReading>(keys.length);
      for (let i = 0; i < keys.length; i++) {
        // Refused, no budget paid: each reads as it stood.
        const b = keys[i].budget;
        const owed = admitted ? owing[i] + cost : owing[i];
        const waitMs = admitted ? 0 : waitFor(b, owing[i], cost);
        readings[i] = { remaining: remainingOf(b, owed), resetSeconds: resetSeconds(b, owed), waitMs, never: waitMs === Infinity };
      }
      found.fill(undefined, 0, keys.length);
      return { admitted, readings };
    },
    close: async () => undefined,
  };
}
