import type { LeaseAsk, LeaseGrant } from "../../engine/index.js";
import { remainingOf, resetSeconds, type Budget } from "./bucket.js";
import type { KeyBudget, KeyReading, Ledger, LedgerAnswer } from "./ledger.js";

/** Asks the database for units of several budgets at once (one statement). */
export type LeaseSource = (asks: readonly LeaseAsk[]) => Promise<LeaseGrant[]>;

/**
 * The share of a budget a node takes from the database at a time: with two nodes the
 * units held on the nodes and not yet spent are at most a tenth of the quota.
 */
export const SHARE_OF_QUOTA = 0.05;
/** Units held this long unused go back to the database (another node may need them). */
export const GIVE_BACK_AFTER_MS = 1_000;

/** What a node knows of one budget. */
interface KeyState {
  /** Units taken from the database and not yet spent. */
  held: number;
  /** The units the database's budget owed when last heard, and when that was (this node's clock). */
  debt: number;
  heardAt: number;
  /** When this node last spent from it. */
  usedAt: number;
  /** The limit it was last taken under (what a give-back is counted in). */
  budget: Budget;
}

/** Options of {@link createSharedLedger}. */
export interface SharedLedgerOptions {
  source: LeaseSource;
  clock: () => number;
  /** Told when the database could not be asked (the take then goes ahead on a local share). */
  onError?: (err: unknown) => void;
  /** How often held units are looked at to give back (default 1 s; tests give 0 for never). */
  giveBackEveryMs?: number;
}

const shareOf = (b: Budget) => Math.max(1, Math.ceil(b.spec.quota * SHARE_OF_QUOTA));

/**
 * Budgets shared by every node on one PostgreSQL database. The database keeps each budget
 * (table `rate_budgets`, one GCRA time per budget); a node takes a share of it at a time
 * (5 % of the quota, or the request's cost if more) with one statement, and spends that
 * share locally, so most requests ask nothing of the database. Units are taken before they
 * are spent, so the nodes together never admit more than the limit; what a node holds
 * unspent is given back after a second unused, so another node can spend it. A request the
 * node cannot cover asks once: the units it lacks plus a share, or a refusal with how long
 * until they would fit.
 *
 * When the database cannot be asked the node goes on with a local share (one per budget
 * until it can ask again): a limit must not turn a database blip into refusals, and the
 * request's own work meets the database's answer anyway.
 */
export function createSharedLedger(options: SharedLedgerOptions): Ledger {
  const { source, clock } = options;
  const states = new Map<string, KeyState>();
  const pending = new Map<string, Promise<void>>();
  const stateOf = (key: string, budget: Budget): KeyState => {
    let s = states.get(key);
    if (!s) states.set(key, (s = { held: 0, debt: 0, heardAt: 0, usedAt: 0, budget }));
    s.budget = budget;
    return s;
  };
  /** What the database's budget owes by now, as this node last heard it. */
  const owed = (b: Budget, s: KeyState, now: number) => Math.max(0, s.debt - (now - s.heardAt) / b.intervalMs);
  // What this node holds counts as left: it can spend it without asking.
  const reading = (b: Budget, s: KeyState, now: number, waitMs = 0, never = false): KeyReading => {
    const debt = Math.max(0, owed(b, s, now) - s.held);
    return { remaining: remainingOf(b, debt), resetSeconds: resetSeconds(b, debt), waitMs, never };
  };
  const askOf = (k: KeyBudget, need: number, back = 0): LeaseAsk => ({
    key: k.key,
    need,
    want: need > 0 ? need + shareOf(k.budget) : 0,
    back,
    intervalUs: k.budget.intervalMs * 1000,
    quota: k.budget.spec.quota,
  });
  const hear = (grants: readonly LeaseGrant[]) => {
    const now = clock();
    for (const g of grants) {
      const s = states.get(g.key);
      if (!s) continue;
      s.held += g.granted;
      s.debt = g.debt;
      s.heardAt = now;
    }
  };
  const lease = (asks: LeaseAsk[]): Promise<void> => {
    const done = source(asks).then(hear, (err: unknown) => {
      options.onError?.(err);
      // Unasked: go on with what the database would most likely have granted.
      for (const a of asks) {
        const s = states.get(a.key);
        if (s) s.held += a.want;
      }
    });
    const settled = done.finally(() => {
      for (const a of asks) if (pending.get(a.key) === settled) pending.delete(a.key);
    });
    for (const a of asks) pending.set(a.key, settled);
    return settled;
  };

  const decide = (keys: readonly KeyBudget[], cost: number, asked: boolean): LedgerAnswer | Promise<LedgerAnswer> => {
    const now = clock();
    const st = keys.map((k) => stateOf(k.key, k.budget));
    const never = keys.map((k) => cost > k.budget.spec.quota);
    if (never.some(Boolean)) return { admitted: false, readings: keys.map((k, i) => reading(k.budget, st[i], now, never[i] ? Infinity : 0, never[i])) };
    if (st.every((s) => s.held + 1e-9 >= cost)) {
      for (const s of st) {
        s.held -= cost;
        s.usedAt = now;
      }
      return { admitted: true, readings: keys.map((k, i) => reading(k.budget, st[i], now)) };
    }
    if (asked) {
      // Asked once already: what is still lacking does not fit yet.
      const readings = keys.map((k, i) => {
        const lack = Math.max(0, cost - st[i].held);
        const over = owed(k.budget, st[i], now) + lack - k.budget.spec.quota;
        return reading(k.budget, st[i], now, lack > 0 ? Math.max(1, over * k.budget.intervalMs) : 0);
      });
      return { admitted: false, readings };
    }
    const waiting = [...new Set(keys.map((k) => pending.get(k.key)).filter((p): p is Promise<void> => p !== undefined))];
    if (waiting.length > 0) return Promise.all(waiting).then(() => decide(keys, cost, false));
    const asks = keys.flatMap((k, i) => (st[i].held + 1e-9 >= cost ? [] : [askOf(k, cost - st[i].held)]));
    return lease(asks).then(() => decide(keys, cost, true));
  };

  const giveBack = (all: boolean): Promise<void> | undefined => {
    const now = clock();
    const asks: LeaseAsk[] = [];
    for (const [key, s] of states) {
      if (pending.has(key)) continue;
      if (s.held >= 1 && (all || now - s.usedAt >= GIVE_BACK_AFTER_MS)) {
        asks.push({ ...askOf({ key, budget: s.budget }, 0), back: Math.floor(s.held) });
        s.held -= Math.floor(s.held);
      } else if (s.held < 1 && now - s.usedAt > 60_000 && now - s.heardAt > 60_000) states.delete(key);
    }
    return asks.length > 0 ? lease(asks) : undefined;
  };
  const every = options.giveBackEveryMs ?? GIVE_BACK_AFTER_MS;
  const timer = every > 0 ? setInterval(() => void giveBack(false), every) : undefined;
  timer?.unref();

  return {
    take: (keys, cost) => decide(keys, cost, false),
    async close() {
      if (timer) clearInterval(timer);
      await Promise.all(pending.values());
      await giveBack(true);
    },
  };
}
