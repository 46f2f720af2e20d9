import type { Store } from "./store.js";

/** A node asking for units of one budget (all amounts in units, times in microseconds). */
export interface LeaseAsk {
  /** The budget: `w:<workspace>` or `t:<tokenId>`. */
  key: string;
  /** Units the node must have: granted wholly or not at all. */
  need: number;
  /** Units it would like (need plus a share): granted as far as they fit, never below need. */
  want: number;
  /** Units it held and did not spend, given back first. */
  back: number;
  /** Microseconds one unit takes to be paid back (window / quota). */
  intervalUs: number;
  /** The limit's quota: the most the budget may owe. */
  quota: number;
}

/** What the database granted, and what the budget then owes. */
export interface LeaseGrant {
  key: string;
  granted: number;
  /** Units the budget owes once this grant is taken (0: full). */
  debt: number;
}

/** The database's clock in microseconds: every node reads the same one. */
const NOW = "(extract(epoch FROM statement_timestamp()) * 1000000)::float8";

/**
 * One budget's upsert, a token bucket kept as debt (n: its parameters start at $n+1): what
 * the budget owed, less what was paid back since (a unit per interval) and what the node
 * gives back, never below zero; a grant fits while the debt stays within the quota, and is
 * as much as wanted as fits, never less than needed. The row's `granted` keeps this grant
 * so RETURNING can say it (SET reads the old row, RETURNING the new).
 */
function upsert(alias: string, n: number): string {
  const [need, want, back, t, q] = [2, 3, 4, 5, 6].map((i) => `$${n + i}::float8`);
  const owed = `GREATEST(0, b.debt_mu / 1e6 - (${NOW} - b.at_us) / ${t} - ${back})`;
  const grant = (d: string) => `(CASE WHEN ${d} + ${need} <= ${q} + 1e-6 THEN LEAST(${want}, floor(${q} - ${d} + 1e-6)) ELSE 0 END)`;
  return `${alias} AS (
  INSERT INTO rate_budgets AS b (key, debt_mu, at_us, granted) VALUES ($${n + 1}::text, ${grant("0")} * 1e6, ${NOW}, ${grant("0")})
  ON CONFLICT (key) DO UPDATE SET granted = ${grant(owed)}, debt_mu = (${owed} + ${grant(owed)}) * 1e6, at_us = ${NOW}
  RETURNING b.key, b.granted::float8 AS granted, b.debt_mu / 1e6::float8 AS debt
)`;
}

const texts = new Map<number, string>();
/** The statement for `count` budgets (one text per count, prepared once). */
function leaseSql(count: number): string {
  let text = texts.get(count);
  if (!text) {
    const parts = Array.from({ length: count }, (_, i) => upsert(`k${i}`, i * 6));
    text = `WITH ${parts.join(",\n")}\n${parts.map((_, i) => `SELECT key, granted, debt FROM k${i}`).join(" UNION ALL ")}`;
    texts.set(count, text);
  }
  return text;
}

/** Budgets asked for in one statement at most (a give-back of many idle budgets is chunked). */
const PER_STATEMENT = 32;

/**
 * The rate budgets the nodes on one PostgreSQL database share (table `rate_budgets`), or
 * undefined on SQLite, where one process keeps its budgets in memory. One statement per
 * lease, whatever the number of budgets in it. It is a single statement outside any
 * transaction on purpose: a budget is bookkeeping, not data, so it is not announced as a
 * change (which would empty every node's caches of reads on every lease); the store runs a
 * statement that begins with WITH as such (test/postgres/rate-limit.test.ts checks it).
 */
export function createRateBudgets(store: Store): ((asks: readonly LeaseAsk[]) => Promise<LeaseGrant[]>) | undefined {
  if (store.kind !== "postgres") return undefined;
  return async (asks) => {
    const grants: LeaseGrant[] = [];
    for (let i = 0; i < asks.length; i += PER_STATEMENT) {
      const chunk = asks.slice(i, i + PER_STATEMENT);
      const params = chunk.flatMap((a) => [a.key, a.need, a.want, a.back, a.intervalUs, a.quota]);
      const rows = await store.sql.all<{ key: string; granted: number; debt: number }>(leaseSql(chunk.length), params);
      for (const r of rows) grants.push({ key: r.key, granted: Number(r.granted), debt: Number(r.debt) });
    }
    return grants;
  };
}
