// One pipeline pass over a context of 1,000 records next to one over 2,000 after one new
// contribution each: a pass costs what changed, so both stay well under a full pass of the
// 2,000 (every record resolved again from its contributions, as when the definitions
// change), measured in the same run on the same context.
// Records: half applicants, half employments each matched to an applicant by a field, and
// one loan related to every applicant; the ten bench rules evaluated at the end.
// Standalone: node test/bench/pass-bench.mjs [--rounds 11]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createLocalEngine } from "../../dist/engine/local-engine.js";
import { MODELS, RULES } from "./workload.mjs";

/** Untimed rounds before each timed series. */
const WARMUP = 5;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A context holding `records` records; returns its id. */
async function fill(engine, modelIds, records) {
  const { contextId } = await engine.createContext({ name: `pass-${records}`, type: "mortgage" });
  const items = [{ contextId, modelId: modelIds.Loan, sourceId: "form", sourceType: "document", data: { amount: 300000, propertyValue: 500000, monthlyDebt: 1500 } }];
  for (let i = 0; items.length < records; i++) {
    items.push({ contextId, modelId: modelIds.Applicant, sourceId: "bureau", sourceType: "integration", data: { applicantId: `a${i}`, creditScore: 600 + (i % 200) } });
    if (items.length < records) items.push({ contextId, modelId: modelIds.Employment, sourceId: "payroll", sourceType: "document", data: { employmentId: `e${i}`, applicantId: `a${i}`, monthlyIncome: 3000 + (i % 50) * 100 } });
  }
  for (let i = 0; i < items.length; i += 100) await engine.bulkCreateContributions({ items: items.slice(i, i + 100) });
  return { contextId, total: items.length };
}

/**
 * Times `rounds` passes of one context: each round adds one contribution, then drains it.
 * With `full`, the context's pass stamp is forgotten first, so the pass reads and resolves
 * every record from its contributions (the pass of a context whose definitions changed).
 */
async function passSeconds(engine, modelIds, contextId, rounds, full = false) {
  const times = [];
  const db = engine.ctx.db;
  // The first WARMUP rounds are not timed: a serve node or a long import runs these code
  // paths thousands of times, so the bench times them compiled, as it does the full pass
  // (whose loops the first pass of every record has already run hot).
  for (let r = -WARMUP; r < rounds; r++) {
    await engine.createContribution({ contextId, modelId: modelIds.Loan, sourceId: `form-${full ? "f" : ""}${r}`, sourceType: "document", data: { amount: 300000 + r, propertyValue: 500000, monthlyDebt: 1500 } });
    if (full) await db.run("UPDATE contexts SET pass_stamp = NULL WHERE uuid = ?", [db.dialect.uuid(contextId)]);
    const t0 = performance.now();
    const result = await engine.runPipeline({ contextIds: [contextId] });
    if (r >= 0) times.push((performance.now() - t0) / 1000);
    if (!result.resolved.includes(contextId)) throw new Error(`the pass did not resolve ${contextId}: ${JSON.stringify(result)}`);
  }
  return median(times);
}

/** Runs the pass benchmark; returns rows and the ratio of the two pass times. */
export async function runPassBench({ rounds = 11 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bench-pass-"));
  const engine = createLocalEngine({ db: join(dir, "pass.db") });
  try {
    const modelIds = {};
    for (const m of MODELS) {
      const created = await engine.createModel(m);
      await engine.setModelStatus(created.modelId, "active");
      modelIds[m.name] = created.modelId;
    }
    for (const rule of RULES) await engine.createRule(rule);
    const small = await fill(engine, modelIds, 1000);
    const large = await fill(engine, modelIds, 2000);
    // The first pass of each creates every record's data and relationships: warm both up.
    await engine.runPipeline({ contextIds: [small.contextId, large.contextId] });
    const t1 = await passSeconds(engine, modelIds, small.contextId, rounds);
    const t2 = await passSeconds(engine, modelIds, large.contextId, rounds);
    const full = await passSeconds(engine, modelIds, large.contextId, rounds, true);
    return [
      { name: `pipeline pass after one contribution, context of ${small.total} records (median of ${rounds})`, rows: small.total, seconds: t1 },
      { name: `pipeline pass after one contribution, context of ${large.total} records (median of ${rounds})`, rows: large.total, seconds: t2 },
      { name: `full pass of the same ${large.total} records, from their contributions (median of ${rounds})`, rows: large.total, seconds: full },
      { name: "pass after one contribution / full pass (2,000 records)", ratio: t2 / full, target: "<= 0.25", targetValue: 0.25, lowerIsBetter: true },
      { name: "pass over 2,000 records / pass over 1,000 (at most linear: about 2)", ratio: t2 / t1, target: "<= 2.40", targetValue: 2.4, lowerIsBetter: true },
    ];
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Standalone use prints the rows as JSON.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const rounds = args.includes("--rounds") ? Number(args[args.indexOf("--rounds") + 1]) : 11;
  process.stdout.write(`${JSON.stringify(await runPassBench({ rounds }), null, 2)}\n`);
}
