// Issue 3 (a)(b)(c): raw better-sqlite3 inserts vs ddsctl ingest, without and with resolution.
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createLocalEngine } from "../../dist/engine/local-engine.js";
import { openSqliteDatabase } from "../../dist/engine/store/db.js";
import { uuidBytes, uuidString } from "../../dist/engine/store/values.js";
import { newId as uuidv7 } from "../../dist/util/ids.js";
import { MODELS, RULES, contributions } from "./workload.mjs";

async function setup(dir, contexts) {
  const engine = createLocalEngine({ db: join(dir, "dds.db") });
  const modelIds = {};
  for (const m of MODELS) {
    const created = await engine.createModel(m);
    await engine.setModelStatus(created.modelId, "active");
    modelIds[m.name] = created.modelId;
  }
  for (const r of RULES) await engine.createRule(r);
  const contextIds = [];
  for (let i = 0; i < contexts; i++) contextIds.push((await engine.createContext({ name: `case-${i}`, type: "mortgage" })).contextId);
  return { engine, modelIds, contextIds };
}

async function ingest(engine, rows, contextIds, modelIds) {
  let batch = [];
  const t0 = performance.now();
  for (const c of contributions(rows, contextIds, modelIds)) {
    batch.push(c);
    if (batch.length === 100) {
      const res = await engine.bulkCreateContributions({ items: batch });
      if (res.summary.failed) throw new Error(JSON.stringify(res.items.find((i) => i.error)));
      batch = [];
    }
  }
  if (batch.length) await engine.bulkCreateContributions({ items: batch });
  return (performance.now() - t0) / 1000;
}

/** Runs (a), (b), (c) and returns result rows and ratios. */
export async function runIngestBench({ rows, contexts }) {
  const out = [];
  // (a) raw prepared inserts of the same contribution rows, one transaction.
  {
    const dir = mkdtempSync(join(tmpdir(), "bench-raw-"));
    const { engine, modelIds, contextIds } = await setup(dir, contexts);
    await engine.close();
    const store = openSqliteDatabase(join(dir, "dds.db"));
    const db = store.raw;
    // The project's own tables: integer keys inside, UUIDs in 16 bytes, times in milliseconds.
    const ctxKey = new Map(db.prepare("SELECT uuid, id FROM contexts").all().map((r) => [uuidString(r.uuid), r.id]));
    const loanKey = db.prepare("SELECT id FROM models WHERE name = 'Loan'").pluck().get();
    const rec = db.prepare("INSERT INTO records (uuid, workspace_id, context_id, model_id, identity_key, created_by, created_at, updated_at) VALUES (?, 1, ?, ?, '[]', 'bench', ?, ?)");
    const now = Date.now();
    const index = new Map();
    db.transaction(() => contextIds.forEach((c) => index.set(c, Number(rec.run(uuidBytes(uuidv7()), ctxKey.get(c), loanKey, now, now).lastInsertRowid))))();
    const ins = db.prepare(`INSERT INTO contributions (uuid, workspace_id, record_id, source_id, source_type, data, field_confidences, status, received_at, created_by)
      VALUES (?, 1, ?, ?, ?, ?, ?, 'accepted', ?, 'bench')`);
    const t0 = performance.now();
    db.transaction(() => {
      for (const c of contributions(rows, contextIds, modelIds)) {
        ins.run(uuidBytes(uuidv7()), index.get(c.contextId), c.sourceId, c.sourceType, JSON.stringify(c.data), c.fieldConfidences ? JSON.stringify(c.fieldConfidences) : null, Date.now());
      }
    })();
    const seconds = (performance.now() - t0) / 1000;
    store.close();
    rmSync(dir, { recursive: true, force: true });
    out.push({ name: "(a) raw better-sqlite3 prepared inserts, one transaction", rows, seconds });
  }
  // (b) ddsctl ingest without resolution; (c) then resolve until every context is resolved.
  {
    const dir = mkdtempSync(join(tmpdir(), "bench-ingest-"));
    const { engine, modelIds, contextIds } = await setup(dir, contexts);
    const seconds = await ingest(engine, rows, contextIds, modelIds);
    out.push({ name: `(b) ddsctl ingest, ${contexts} contexts, 3 models, 10 rules, no resolution`, rows, seconds });
    const t0 = performance.now();
    const run = await engine.runPipeline();
    const resolveSeconds = (performance.now() - t0) / 1000;
    const status = await engine.pipelineStatus();
    if (status.contexts.stale || status.contexts.computing) throw new Error(`not resolved: ${JSON.stringify(status)}`);
    out.push({ name: `(c) ddsctl ingest + full resolution (${run.passes} passes)`, rows, seconds: seconds + resolveSeconds });
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const [a, b, c] = out;
  const rate = (r) => r.rows / r.seconds;
  out.push({ name: "b/a ingest vs raw inserts", ratio: rate(b) / rate(a), target: ">= 0.50", targetValue: 0.5 });
  out.push({ name: "c/a ingest + resolution vs raw inserts", ratio: rate(c) / rate(a), target: ">= 0.25", targetValue: 0.25 });
  return out;
}
