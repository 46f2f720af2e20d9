import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalEngine, type LocalEngine } from "../../src/engine/local-engine.js";
import { openDatabase } from "../../src/engine/store/db.js";
import { UNRESOLVED_VERSION } from "../../src/engine/store/evidence-repo.js";
import { createPipelineRepo } from "../../src/engine/store/pipeline-repo.js";
import { GATE_LIMIT, STALE_GATE } from "../../src/engine/store/postgres/pg-stale-gate.js";
import type { Store } from "../../src/engine/store/store.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { inspect, until } from "./support.js";

/**
 * A writer's COMMIT on PostgreSQL leaves the contexts already stale alone (no row lock, no
 * new row version), behind a gate that claims cannot pass while the COMMIT runs (see
 * pg-stale-gate.ts). Each race is staged with real locks: a writer held inside its COMMIT
 * (its mark waits for a row the test holds) while a claim is tried, and a claim held open
 * while a writer commits. Every accepted contribution reaches the next pass.
 */
const PERSON = { name: "Person", identity: ["ssn"], fields: [{ name: "ssn", type: "string" as const }, { name: "income", type: "number" as const, resolution: { policy: "max" as const } }] };

let cluster: PgCluster;
let url: string;
let db: postgres.Sql;
let person: string;
let store: Store;
let engine: LocalEngine;
beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
  db = inspect(url);
  store = await openDatabase(url);
  engine = createLocalEngine({ db: store, ownsStore: true });
  person = (await engine.createModel(PERSON)).modelId;
  await engine.setModelStatus(person, "active");
}, 60_000);
afterAll(async () => {
  await engine?.close();
  await db?.end();
  await cluster?.stop();
});

const item = (contextId: string, ssn: string, income: number) => ({ contextId, modelId: person, sourceId: `src-${ssn}`, sourceType: "integration", data: { ssn, income } });

interface Row {
  freshness: string;
  version: number;
  passed: number;
  /** The row version's physical place and creating transaction: unchanged when nothing wrote the row. */
  ctid: string;
  xmin: string;
}
const row = async (contextId: string): Promise<Row> =>
  (
    await db.unsafe(
      "SELECT freshness, evidence_version::int AS version, passed_version::int AS passed, ctid::text AS ctid, xmin::text AS xmin FROM contexts WHERE uuid = $1",
      [contextId],
    )
  )[0] as unknown as Row;

/** The resolved income of the record `ssn` (null while unresolved). */
const income = async (ssn: string): Promise<number | null> => {
  const [r] = await db.unsafe("SELECT data::jsonb->>'income' AS income, changed_version = $2 AS unresolved FROM records WHERE identity_key = $1", [JSON.stringify([ssn]), UNRESOLVED_VERSION]);
  return r === undefined || r.unresolved ? null : Number(r.income);
};

/** A context turned stale by a first bulk, waiting for its pass (quiet). */
async function quietContext(name: string): Promise<string> {
  const { contextId } = await engine.createContext({ name });
  await engine.bulkCreateContributions({ items: [item(contextId, `${name}-first`, 1)] });
  const r = await row(contextId);
  expect(r.freshness).toBe("stale");
  expect(r.version).toBeGreaterThan(r.passed);
  return contextId;
}

/** Waits until some backend waits on a lock inside a COMMIT message that marks contexts stale. */
const commitWaiting = () =>
  until(
    async () => (await db.unsafe("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%WITH locked AS%'")).length > 0,
    "the writer's COMMIT to wait on a lock",
  );

describe("a COMMIT and the contexts already stale (PostgreSQL)", () => {
  it("a bulk into contexts already stale neither locks nor rewrites their rows, and their next pass resolves both bulks", async () => {
    const contexts = [await quietContext("alone-0"), await quietContext("alone-1")];
    const before = await Promise.all(contexts.map(row));
    const res = await engine.bulkCreateContributions({ items: contexts.map((id, i) => item(id, `alone-${i}-second`, 50 + i)) });
    expect(res.summary).toMatchObject({ succeeded: 2, failed: 0 });
    // The same row versions: the COMMIT wrote nothing into them, and they read stale.
    expect(await Promise.all(contexts.map(row))).toEqual(before);
    await engine.runPipeline();
    for (const [i, id] of contexts.entries()) {
      expect((await row(id)).freshness).toBe("resolved");
      expect(await income(`alone-${i}-first`)).toBe(1);
      expect(await income(`alone-${i}-second`)).toBe(50 + i);
    }
  });

  it("a claim tried while a writer's COMMIT is under way skips the stale context that COMMIT left alone; the claim after it reads the writer's records", async () => {
    const quiet = await quietContext("gated-quiet");
    const { contextId: resolved } = await engine.createContext({ name: "gated-resolved" });
    await engine.runPipeline();
    expect((await row(quiet)).freshness).toBe("resolved");
    // Stale again by a first bulk; the other context stays resolved, its mark to come.
    await engine.bulkCreateContributions({ items: [item(quiet, "gated-quiet-again", 2)] });
    const left = await row(quiet);
    expect(left.freshness).toBe("stale");
    // The test holds the resolved context's row against changers: the writer's COMMIT gets
    // its gates, reads the stale context as quiet, then waits to mark the resolved one.
    const holder = await db.reserve();
    const writer = createLocalEngine({ db: await openDatabase(url), ownsStore: true });
    try {
      await holder.unsafe("BEGIN");
      await holder.unsafe("SELECT 1 FROM contexts WHERE uuid = $1 FOR SHARE", [resolved]);
      const bulk = writer.bulkCreateContributions({ items: [item(quiet, "gated-late", 77), item(resolved, "gated-other", 5)] });
      await commitWaiting();
      // Between the COMMIT's read and its end: no claim takes the quiet context.
      expect(await createPipelineRepo(store.sql).claimMany("gate-test", 60_000, 5, { only: [quiet] })).toEqual([]);
      expect(await row(quiet)).toEqual(left);
      await holder.unsafe("COMMIT");
      expect((await bulk).summary).toMatchObject({ succeeded: 2, failed: 0 });
    } finally {
      await holder.unsafe("ROLLBACK").catch(() => undefined);
      holder.release();
      await writer.close();
    }
    // Left alone by the COMMIT, and read by the next pass.
    expect(await row(quiet)).toEqual(left);
    expect((await row(resolved)).freshness).toBe("stale");
    await engine.runPipeline();
    expect((await row(quiet)).freshness).toBe("resolved");
    expect(await income("gated-late")).toBe(77);
    expect(await income("gated-other")).toBe(5);
  });

  it("a writer's COMMIT that meets a claim in flight waits for it, then bumps the context: the pass leaves it stale, and the next pass resolves the bulk", async () => {
    const quiet = await quietContext("claimed");
    const claimer = await openDatabase(url);
    let claimed!: () => void;
    let letGo!: () => void;
    const inFlight = new Promise<void>((r) => (claimed = r));
    const held = new Promise<void>((r) => (letGo = r));
    try {
      // The real claim statement, in a transaction the test holds open: its gate with it.
      const claim = claimer.sql.tx(async (tx) => {
        const [c] = await createPipelineRepo(tx).claimMany("gate-test", 60_000, 1, { only: [quiet] });
        claimed();
        await held;
        return c;
      });
      await inFlight;
      const bulk = engine.bulkCreateContributions({ items: [item(quiet, "claimed-late", 88)] });
      await commitWaiting();
      letGo();
      const c = await claim;
      expect(c).toBeDefined();
      expect((await bulk).summary).toMatchObject({ succeeded: 1, failed: 0 });
      // The COMMIT saw the claim: the version moved past the one the claim read.
      const r = await row(quiet);
      expect(r.freshness).toBe("computing");
      expect(r.version).toBe(c!.evidenceVersion + 1);
      await createPipelineRepo(claimer.sql).release(c!);
    } finally {
      letGo();
      await claimer.close();
    }
    await engine.runPipeline();
    expect((await row(quiet)).freshness).toBe("resolved");
    expect(await income("claimed-late")).toBe(88);
  });

  it("a claim of contexts its transaction holds FOR UPDATE (a write group's own) takes no gate; any other claim holds one to its end", async () => {
    const quiet = [await quietContext("held-0"), await quietContext("held-1")];
    const keys = (await db.unsafe("SELECT id::int AS k FROM contexts WHERE uuid = ANY($1::uuid[]) ORDER BY id", [quiet])).map((r) => r.k as number);
    const claimer = await openDatabase(url);
    const gates = (tx: { all<T>(sql: string, params?: unknown[]): Promise<T[]> }) =>
      tx.all<{ n: number }>("SELECT COUNT(*)::int AS n FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory' AND classid = ?", [STALE_GATE]);
    try {
      await claimer.sql.tx(async (tx) => {
        await tx.all(`SELECT id FROM contexts WHERE id = ANY(?::bigint[]) ORDER BY id FOR UPDATE`, [keys]);
        const claims = await createPipelineRepo(tx).claimMany("held-test", 60_000, 5, { onlyKeys: [keys[0]], held: true });
        expect(claims.map((c) => c.contextKey)).toEqual([keys[0]]);
        expect((await gates(tx))[0].n).toBe(0);
        const other = await createPipelineRepo(tx).claimMany("held-test", 60_000, 5, { onlyKeys: [keys[1]] });
        expect(other.map((c) => c.contextKey)).toEqual([keys[1]]);
        expect((await gates(tx))[0].n).toBe(1);
        for (const c of [...claims, ...other]) await createPipelineRepo(tx).release(c);
      });
    } finally {
      await claimer.close();
    }
    await engine.runPipeline();
  });

  it(`a bulk into more than ${GATE_LIMIT} contexts takes no gates and marks every one of them, as before`, async () => {
    const contexts: string[] = [];
    for (let c = 0; c <= GATE_LIMIT; c++) contexts.push((await engine.createContext({ name: `wide-${c}` })).contextId);
    await engine.bulkCreateContributions({ items: contexts.map((id, i) => item(id, `wide-${i}-a`, i)) });
    const before = await Promise.all(contexts.map(row));
    for (const r of before) expect(r.freshness).toBe("stale");
    await engine.bulkCreateContributions({ items: contexts.map((id, i) => item(id, `wide-${i}-b`, i + 1)) });
    const after = await Promise.all(contexts.map(row));
    expect(after.map((r) => r.version)).toEqual(before.map((r) => r.version + 1));
    await engine.runPipeline();
    for (const [i] of contexts.entries()) expect(await income(`wide-${i}-b`)).toBe(i + 1);
  });
});
