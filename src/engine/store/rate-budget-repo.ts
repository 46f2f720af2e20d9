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
  /** Microseconds one unit takes to refill (window / quota). */
  intervalUs: number;
  /** The limit's window in microseconds: the most debt the budget may carry. */
  windowUs: number;
}

/** What the database granted, and how far behind the budget then is. */
export interface LeaseGrant {
  key: string;
  granted: number;
  /** Microseconds until the budget is full again (0 or less: full). */
  debtUs: number;
}

const NOW = "(extract(epoch FROM statement_timestamp()) * 1000000)::float8";

/**
 * One budget's upsert, GCRA in SQL (n: its parameters start at $n+1): the budget is the
 * time it is full again; units given back move that time back (never before now), units
 * granted move it on, and a grant fits while the debt stays within one window. The row's
 * `granted` keeps this grant so RETURNING can say it (SET sees the old row, RETURNING the new).
 */
function upsert(alias: string, n: number): string {
  const [need, want, back, t, w] = [2, 3, 4, 5, 6].map((i) => `$${n + i}::float8`);
  const base = `GREATEST(b.full_at_us - ${back} * ${t}, ${NOW})`;
  const grant = (from: string) => `(CASE WHEN ${from} + ${need} * ${t} - ${NOW} <= ${w} + 1e-6 * ${t} THEN LEAST(${want}, floor((${w} - (${from} - ${NOW})) / ${t} + 1e-6)) ELSE 0 END)`;
  return `${alias} AS (
  INSERT INTO rate_budgets AS b (key, full_at_us, granted) VALUES ($${n + 1}::text, ${NOW} + ${grant(NOW)} * ${t}, ${grant(NOW)})
  ON CONFLICT (key) DO UPDATE SET granted = ${grant(base)}, full_at_us = ${base} + ${grant(base)} * ${t}
  RETURNING b.key, b.granted::float8 AS granted, (b.full_at_us - ${NOW})::float8 AS debt
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
      const params = chunk.flatMap((a) => [a.key, a.need, a.want, a.back, a.intervalUs, a.windowUs]);
      const rows = await store.sql.all<{ key: string; granted: number; debt: number }>(leaseSql(chunk.length), params);
      for (const r of rows) grants.push({ key: r.key, granted: Number(r.granted), debtUs: Number(r.debt) });
    }
    return grants;
  };
}
