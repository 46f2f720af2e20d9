import postgres from "postgres";
import type { DdsService } from "../../src/contract/service.js";
import { openLocalEngine } from "../../src/engine/local-engine.js";
import { openDatabase } from "../../src/engine/store/db.js";
import type { Sql } from "../../src/engine/store/sql.js";
import type { Store } from "../../src/engine/store/store.js";
import { RULES } from "../contract/mortgage-models.js";
import { setupMortgageModels } from "../contract/mortgage-models.js";

/** Polls `check` until it holds: tests wait for conditions, never for durations. */
export async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A plain connection for reading the database behind the nodes' backs. */
export function inspect(url: string): postgres.Sql {
  return postgres(url, { max: 2, onnotice: () => undefined, types: { int8: { to: 20, from: [20], serialize: String, parse: Number } } });
}

/** Contribution bodies for one case: a loan, applicants and their employments, from sources that repeat. */
export function caseItems(models: Awaited<ReturnType<typeof setupMortgageModels>>, contextId: string, n: number, seed: number): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const k = (i + seed) % 10;
    const src = `src-${(i * 7 + seed) % 5}`;
    if (k < 3) items.push({ contextId, modelId: models.Loan, sourceId: src, sourceType: "document", data: { amount: 100_000 + ((i * 7919 + seed) % 400_000), propertyValue: 500_000, monthlyDebt: 800 } });
    else if (k < 7) items.push({ contextId, modelId: models.Applicant, sourceId: src, sourceType: "integration", data: { applicantId: `a${i % 3}`, name: `N${i % 4}`, creditScore: 550 + (i % 300) } });
    else items.push({ contextId, modelId: models.Employment, sourceId: src, sourceType: "document", data: { employmentId: `e${i % 3}`, applicantId: `a${i % 3}`, monthlyIncome: 2000 + (i % 6000) } });
  }
  return items;
}

/**
 * Every resolved record and evaluation of a database, keyed by what identifies it across
 * runs (context name, model, identity), read through the port so SQLite and PostgreSQL
 * compare alike.
 */
export async function resolvedState(db: Sql): Promise<{ records: Record<string, string>; evaluations: Record<string, boolean>; counts: Record<string, number> }> {
  const records = await db.all<{ ctx: string; model: string; k: string; sha256: string }>(
    `SELECT c.name AS ctx, m.name AS model, r.identity_key AS k, r.sha256 FROM records r JOIN contexts c ON c.id = r.context_id JOIN models m ON m.id = r.model_id
     WHERE r.deleted_at IS NULL`,
  );
  const evaluations = await db.all<{ ctx: string; rule: string; outcome: number }>(
    `SELECT c.name AS ctx, u.name AS rule, e.outcome FROM evaluations e JOIN contexts c ON c.id = e.context_id JOIN rules u ON u.id = e.rule_id`,
  );
  const counts = (await db.get<Record<string, number>>(
    `SELECT (SELECT COUNT(*) FROM contributions) AS contributions, (SELECT COUNT(*) FROM records) AS records,
       (SELECT COUNT(*) FROM evaluations) AS evaluations, (SELECT COUNT(*) FROM relationships) AS links`,
  ))!;
  return {
    records: Object.fromEntries(records.map((r) => [`${r.ctx}/${r.model}/${r.k}`, r.sha256 as string])),
    evaluations: Object.fromEntries(evaluations.map((e) => [`${e.ctx}/${e.rule}`, Boolean(e.outcome)])),
    counts: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Number(v)])),
  };
}

/** Seeds the mortgage models and rules through a service; returns the model ids. */
export async function seedModels(s: DdsService, rules: Record<string, unknown>): Promise<Awaited<ReturnType<typeof setupMortgageModels>>> {
  const models = await setupMortgageModels(s);
  for (const rule of Object.values(rules)) await s.createRule(rule as never);
  return models;
}

/** Runs `fn` on a store of the database at `url`, closing it afterwards. */
export async function withStore<T>(url: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openDatabase(url);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * What a failed wait for resolution leaves to read: the contexts not resolved (freshness,
 * status, claim, lease, versions) and, when given, the last lines the nodes logged.
 */
export async function unresolvedReport(db: postgres.Sql, logs: (() => string)[] = []): Promise<string> {
  const rows = await db.unsafe(
    `SELECT uuid::text AS id, freshness, status, claimed_by, claim_token::text AS token, lease_expires_at::text AS lease,
       evidence_version::text AS evidence, resolved_version::text AS resolved, now()::text AS now
     FROM contexts WHERE freshness != 'resolved' ORDER BY id LIMIT 10`,
  );
  const tails = logs.map((log, i) => `node ${i}: ${log().split("\n").slice(-15).join("\n")}`);
  return `${JSON.stringify(rows)}\n${tails.join("\n")}`;
}

/** True once no context of the database is stale or computing. */
export const allResolved = (db: postgres.Sql) => async (): Promise<boolean> =>
  (await db.unsafe("SELECT 1 FROM contexts WHERE freshness != 'resolved' LIMIT 1")).length === 0;

/** Models, rules and empty contexts of these names, written in-process before any node runs. */
export async function seedContexts(url: string, names: string[]): Promise<{ models: Awaited<ReturnType<typeof setupMortgageModels>>; contextIds: string[] }> {
  const engine = await openLocalEngine({ db: url });
  try {
    const models = await seedModels(engine, RULES);
    const contextIds: string[] = [];
    for (const name of names) contextIds.push((await engine.createContext({ name, type: "mortgage" })).contextId);
    return { models, contextIds };
  } finally {
    await engine.close();
  }
}
