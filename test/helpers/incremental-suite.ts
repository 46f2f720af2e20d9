import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { LocalEngine } from "../../src/engine/local-engine.js";
import { runPass } from "../../src/engine/pipeline/stages/index.js";
import { passCacheOf } from "../../src/engine/store/pass-cache.js";
import { APPLICANT, EMPLOYMENT, LOAN } from "../contract/mortgage-models.js";

/** A model of its own records only: a workspace of such models passes record by record. */
const PERSON = {
  name: "Person",
  identity: ["ssn"],
  fields: [
    { name: "ssn", type: "string" },
    { name: "score", type: "integer", validation: { max: 3 }, resolution: { policy: "majority" } },
    { name: "city", type: "string", required: true, resolution: { policy: "latest" } },
  ],
};

const RULE_BODIES = [
  { "<=": [{ var: "Loan.dti" }, 0.43] },
  { "<=": [{ var: "Loan.ltv" }, 0.8] },
  { all: [{ var: "Applicant.creditScore" }, { ">=": [{ var: "" }, 1] }] },
  { some: [{ var: "Person.score" }, { ">=": [{ var: "" }, 2] }] },
  { "==": [{ var: "context.type" }, "mortgage"] },
];
const POLICIES = [{ policy: "latest" }, { policy: "max" }, { policy: "majority" }, { policy: "highest_confidence" }, { policy: "earliest" }];
const SOURCE_TYPES = ["document", "integration", "user"] as const;

/** One step of a history. */
type Step =
  | { op: "contribute"; items: { ctx: number; model: number; id: number; source: number; type: number; a: number | null; b: number | null; conf: number }[] }
  | { op: "update"; pick: number; a: number }
  | { op: "delete"; pick: number }
  | { op: "unlink"; pick: number }
  | { op: "policy"; policy: number }
  | { op: "computed"; variant: number }
  | { op: "rename"; variant: number }
  | { op: "rule"; body: number; active: boolean; types: boolean }
  | { op: "type"; ctx: number; mortgage: boolean }
  | { op: "pass"; cold: boolean }
  | { op: "group"; calls: Extract<Step, { op: "contribute" }>["items"][]; failing: boolean };

const small = fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 5 });
const itemsArbitrary = fc.array(
  fc.record({
    ctx: fc.integer({ min: 0, max: 2 }),
    model: fc.integer({ min: 0, max: 3 }),
    id: fc.integer({ min: 0, max: 3 }),
    source: fc.integer({ min: 0, max: 2 }),
    type: fc.integer({ min: 0, max: 2 }),
    a: small,
    b: small,
    conf: fc.constantFrom(0.3, 0.5, 1),
  }),
  { minLength: 1, maxLength: 6 },
);
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: fc.constant("contribute" as const), items: itemsArbitrary }) },
  // An import's write group: several calls, resolved as the group ends.
  { weight: 3, arbitrary: fc.record({ op: fc.constant("group" as const), calls: fc.array(itemsArbitrary, { minLength: 1, maxLength: 4 }), failing: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("update" as const), pick: fc.nat(), a: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("unlink" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("policy" as const), policy: fc.integer({ min: 0, max: POLICIES.length - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("computed" as const), variant: fc.integer({ min: 0, max: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("rename" as const), variant: fc.integer({ min: 0, max: 1 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("rule" as const), body: fc.integer({ min: 0, max: RULE_BODIES.length - 1 }), active: fc.boolean(), types: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("type" as const), ctx: fc.integer({ min: 0, max: 2 }), mortgage: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("pass" as const), cold: fc.boolean() }) },
);

/**
 * What the store holds of a context, and what a full resolution from scratch gives it
 * (every record from its contributions, as the interface's "full pass" does), in the same
 * text forms, so that one equality compares every record's data, sha256, lineage and
 * issues, every relationship and every evaluation.
 */
async function compareWithFull(engine: LocalEngine, contextId: string): Promise<void> {
  const db = engine.ctx.db;
  const d = db.dialect;
  const [ctx] = await db.all<{ key: number }>("SELECT id AS key FROM contexts WHERE uuid = ?", [d.uuid(contextId)]);
  const loaded = await engine.pipeline.repo.loadContextInput(Number(ctx.key));
  const out = runPass(loaded!.input);
  const full = {
    records: out.records
      .map((r) => ({ id: r.id, data: JSON.stringify(r.data), sha256: r.sha256, issues: JSON.stringify(r.issues), lineage: out.states.get(r.id)!.lineage }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    links: out.links.map((l) => `${l.sourceRecordId} ${l.name} ${l.targetRecordId}`).sort(),
    evaluations: out.evaluations.map((e) => ({ ruleId: e.ruleId, version: e.ruleVersion, outcome: e.outcome, trace: JSON.stringify(e.trace) })).sort((a, b) => a.ruleId.localeCompare(b.ruleId)),
  };
  const resolvedIds = new Set(full.records.map((r) => r.id));
  const records = await db.all<{ id: string; data: string; sha256: string; issues: string; lineage: string }>(
    "SELECT uuid AS id, data, sha256, issues, lineage FROM records WHERE context_id = ? AND deleted_at IS NULL",
    [Number(ctx.key)],
  );
  const links = await db.all<{ s: string; n: string; t: string }>(
    "SELECT s.uuid AS s, l.name AS n, t.uuid AS t FROM relationships l JOIN records s ON s.id = l.source_record_id JOIN records t ON t.id = l.target_record_id WHERE l.context_id = ?",
    [Number(ctx.key)],
  );
  const evaluations = await db.all<{ ruleId: string; version: number; outcome: boolean | number; trace: string }>(
    "SELECT r.uuid AS \"ruleId\", e.rule_version AS version, e.outcome, e.trace FROM evaluations e JOIN rules r ON r.id = e.rule_id WHERE e.context_id = ?",
    [Number(ctx.key)],
  );
  const stored = {
    records: records
      .filter((r) => resolvedIds.has(r.id))
      .map((r) => ({ id: r.id, data: r.data, sha256: r.sha256, issues: r.issues, lineage: r.lineage }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    links: links.map((l) => `${l.s} ${l.n} ${l.t}`).sort(),
    evaluations: evaluations
      .map((e) => ({ ruleId: e.ruleId, version: Number(e.version), outcome: Boolean(e.outcome), trace: e.trace }))
      .sort((a, b) => a.ruleId.localeCompare(b.ruleId)),
  };
  expect(stored).toEqual(full);
}

/**
 * Incremental passes give exactly what a full pass gives: random histories of evidence
 * (supersedes, record updates and deletes, removed links), definition changes (policies,
 * computed expressions, renames), rule and context-type changes, with passes in between
 * that start warm (from this process's copy) or cold (from the store), compared after
 * every pass with a resolution of every context from scratch. Run on SQLite and on
 * PostgreSQL; `open` gives an engine on an empty database.
 */
export function incrementalPassSuite(name: string, open: () => Promise<LocalEngine>, runs: number): void {
  describe(`incremental passes equal full passes (${name})`, () => {
    let engines: LocalEngine[] = [];
    afterEach(async () => {
      for (const e of engines) await e.close();
      engines = [];
    });

    it("after every pass of a random history, every context holds what a full pass gives it", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArbitrary, { minLength: 4, maxLength: 24 }), async (steps) => {
          const engine = await open();
          engines.push(engine);
          await replay(engine, steps);
        }),
        { numRuns: runs, endOnFailure: true },
      );
      // Tens of random histories take a minute on a busy machine: the bound ends a hang only.
    }, 300_000);
  });
}

async function replay(engine: LocalEngine, steps: Step[]): Promise<void> {
  const models: string[] = [];
  for (const def of [EMPLOYMENT, APPLICANT, LOAN, PERSON]) {
    const model = await engine.createModel(def as never);
    await engine.setModelStatus(model.modelId, "active");
    models.push(model.modelId);
  }
  const contexts: string[] = [];
  for (let i = 0; i < 3; i++) contexts.push((await engine.createContext({ name: `ctx-${i}`, type: i === 0 ? "mortgage" : "other" })).contextId);
  const rules: { id: string; active: boolean }[] = [];
  let renamed = false;
  const liveRecords = async () => (await engine.listRecords({ limit: 500 } as never)).data;
  const check = async () => {
    for (const id of contexts) await compareWithFull(engine, id);
  };
  const itemsOf = (list: Extract<Step, { op: "contribute" }>["items"]) =>
    list.map((it) => {
          const m = it.model;
          const id = `k${it.id}`;
          const data =
            m === 0
              ? { employmentId: id, applicantId: `k${it.id % 2}`, monthlyIncome: it.a === null ? null : 1000 * it.a }
              : m === 1
                ? { applicantId: id, name: it.b === null ? null : `n${it.b}`, creditScore: it.a }
                : m === 2
                  ? { amount: it.a === null ? null : 1000 * (it.a + 1), propertyValue: it.b === null ? null : 2000 * (it.b + 1), monthlyDebt: it.a }
                  : { ssn: id, score: it.a, city: it.b === null ? null : `c${it.b}` };
          const renames = renamed && m === 1 ? { creditScore: "score2" } : ({} as Record<string, string>);
          const named = Object.fromEntries(Object.entries(data).map(([k, v]) => [renames[k] ?? k, v]));
          const scored = Object.keys(named).find((k) => !["employmentId", "applicantId", "ssn"].includes(k));
          return {
            contextId: contexts[it.ctx],
            modelId: models[m],
            sourceId: `s${it.source}`,
            sourceType: SOURCE_TYPES[it.type],
            data: named,
            ...(scored ? { fieldConfidences: { [scored]: it.conf } } : {}),
          };
        });
  for (const step of steps) {
    switch (step.op) {
      case "contribute":
        await engine.bulkCreateContributions({ items: itemsOf(step.items) });
        break;
      case "group": {
        const group = engine.writeGroup!();
        for (const [i, call] of step.calls.entries()) {
          await engine.bulkCreateContributions({ items: itemsOf(call) });
          // A call that fails as a whole leaves nothing in the group (nor in its journal).
          if (step.failing && i === 0) await expect(engine.createContribution({ contextId: contexts[0], modelId: models[0], sourceId: "x", sourceType: "user", data: { nope: 1 } } as never)).rejects.toThrow();
        }
        await group.commit();
        // The contexts the group resolved as it ended hold what a full pass gives them.
        for (const id of contexts) if ((await engine.getContext(id)).freshness === "resolved") await compareWithFull(engine, id);
        break;
      }
      case "update": {
        const records = (await liveRecords()).filter((r) => r.modelId === models[2] || r.modelId === models[3]);
        if (records.length === 0) break;
        const r = records[step.pick % records.length];
        await engine.updateRecord(r.recordId, { data: r.modelId === models[2] ? { monthlyDebt: step.a } : { score: step.a } } as never);
        break;
      }
      case "delete": {
        const records = await liveRecords();
        if (records.length === 0) break;
        await engine.deleteRecord(records[step.pick % records.length].recordId);
        break;
      }
      case "unlink": {
        const links = [];
        // The list shows removed links too (removedAt set): only a current one can be removed.
        for (const id of contexts) for (const l of (await engine.listContextRelationships(id)).data) if (!(l as { removedAt?: string | null }).removedAt) links.push(l);
        if (links.length === 0) break;
        const l = links[step.pick % links.length] as unknown as { sourceRecordId: string; relationshipName: string; targetRecordId: string };
        await engine.removeRelationship(l.sourceRecordId, l.relationshipName, l.targetRecordId);
        break;
      }
      case "policy": {
        const field = renamed ? "score2" : "creditScore";
        await engine.replaceModelField(models[1], field, { name: field, type: "integer", resolution: POLICIES[step.policy] } as never);
        break;
      }
      case "computed": {
        const expression = step.variant === 0 ? { "*": [{ sum: [{ var: "employments.monthlyIncome" }] }, 12] } : { max: [{ var: "employments.monthlyIncome" }] };
        await engine.replaceModelField(models[1], "annualIncome", { name: "annualIncome", type: "number", computed: { expression } } as never);
        break;
      }
      case "rename": {
        const from = renamed ? "score2" : "creditScore";
        const to = renamed ? "creditScore" : "score2";
        const field = (await engine.getModelField(models[1], from)) as unknown as { type: string; resolution?: unknown };
        await engine.replaceModelField(models[1], from, { name: to, type: field.type, ...(field.resolution ? { resolution: field.resolution } : {}) } as never);
        renamed = !renamed;
        break;
      }
      case "rule": {
        const expression = JSON.parse(JSON.stringify(RULE_BODIES[step.body]).replaceAll("creditScore", renamed ? "score2" : "creditScore"));
        const contextTypes = step.types ? ["mortgage"] : [];
        if (rules.length < 3) {
          const rule = await engine.createRule({ name: `r${rules.length}`, category: "credit", severity: "low", expression, contextTypes } as never);
          rules.push({ id: rule.ruleId, active: true });
        } else {
          const rule = rules[step.body % rules.length];
          await engine.updateRule(rule.id, { expression, contextTypes } as never);
          if (rule.active !== step.active) await engine.setRuleStatus(rule.id, step.active ? "active" : "inactive");
          rule.active = step.active;
        }
        break;
      }
      case "type":
        await engine.updateContext(contexts[step.ctx], { type: step.mortgage ? "mortgage" : "other" });
        break;
      case "pass":
        if (step.cold) passCacheOf(engine.ctx.db).clear();
        await engine.runPipeline();
        await check();
        break;
    }
  }
  await engine.runPipeline();
  await check();
}
