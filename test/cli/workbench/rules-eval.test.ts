import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { cli, cliJson, contribute, createModels, createRules, fixture, item, seedCase } from "./setup.js";
import { runImpact } from "../../../src/portable/workbench/rules-eval/impact.js";
import { createHttpClient } from "../../../src/client/index.js";
import type { DdsService } from "../../../src/contract/service.js";
import { openLocalEngine } from "../../../src/engine/local-engine.js";

let box: Sandbox;
let contextId: string;
beforeAll(async () => {
  box = sandbox();
  const models = await createModels(box);
  await createRules(box, ["dti-limit"]);
  contextId = await seedCase(box, models);
});
afterAll(() => box.cleanup());

describe("ddsctl rules eval", () => {
  it("a bare YAML expression against a stored context: the full trace, inputs with lineage, nothing saved", async () => {
    const before = await cliJson(box, ["rules", "list"]);
    const r = await cli(box, ["rules", "eval", fixture("drafts", "ltv-draft.yaml"), "--context", "case-1"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("rule:    (draft)");
    expect(r.stdout).toContain("<= → false\n├─ var Loan.ltv → 0.75\n└─ 0.7\n");
    expect(r.stdout).toMatch(/ {6}propertyValue = 320000\n {8}Loan \S+ → 320000 ← \S+ integration:valuation, confidence 0.8, max, 2 candidates/);
    expect(r.stdout.trimEnd().endsWith("FAIL")).toBe(true);
    expect((await cliJson(box, ["rules", "list"])).data).toEqual(before.data);
  });

  it("--json: the RuleEvaluationResult", async () => {
    const result = await cliJson(box, ["rules", "eval", fixture("drafts", "amount-cap-70k.json"), "--context", contextId]);
    expect(result).toMatchObject({ contextId, asOf: null, outcome: false });
    expect(result.evaluationTrace.inputs).toEqual({ "Loan.amount": 240000 });
  });

  it("a rule body from stdin against a data document, offline", async () => {
    const dataFile = `${box.dir}/data.json`;
    writeFileSync(dataFile, JSON.stringify({ Loan: { amount: 65000 } }));
    const body = readFileSync(fixture("drafts", "amount-cap-70k.json"), "utf8");
    const r = await cli(box, ["rules", "eval", "-", "--data", dataFile], body);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("rule: amount-cap\ndata: document of dotted paths\n\n<= → true\n├─ var Loan.amount → 65000\n└─ 70000\n");
    expect(r.stdout.trimEnd().endsWith("PASS")).toBe(true);
  });

  it("needs exactly one of --context, --data, --all-contexts", async () => {
    expect((await cli(box, ["rules", "eval", fixture("drafts", "ltv-draft.yaml")])).exitCode).toBe(2);
    expect((await cli(box, ["rules", "eval", fixture("drafts", "ltv-draft.yaml"), "--context", contextId, "--all-contexts"])).exitCode).toBe(2);
    expect((await cli(box, ["rules", "eval", fixture("drafts", "ltv-draft.yaml"), "--context", contextId, "--against", "dti-limit"])).exitCode).toBe(2);
  });

  it("a path no model has: 422 compile_failed naming the path and what the model has, exit 1", async () => {
    const r = await cli(box, ["rules", "eval", "-", "--context", "case-1"], JSON.stringify({ "<=": [{ var: "Loan.noSuchField" }, 1] }));
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: expression does not compile: "Loan\.noSuchField": Loan has no field or relationship "noSuchField" \(fields: amount, .*; relationships: applicants\)$/m);
    const all = await cli(box, ["rules", "eval", "-", "--all-contexts", "--json"], JSON.stringify({ var: "Loan.noSuchField" }));
    expect(all.exitCode).toBe(1);
    expect(JSON.parse(all.stderr.split("\n").filter((l) => l.startsWith("{"))[0])).toMatchObject({ code: "compile_failed", errors: [{ path: "expression.var" }] });
  });

  it("an expression that does not compile: 422 compile_failed, exit 1", async () => {
    const r = await cli(box, ["rules", "eval", "-", "--context", contextId, "--json"], JSON.stringify({ nope: [1] }));
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stderr.split("\n").filter((l) => l.startsWith("{"))[0])).toMatchObject({ code: "compile_failed" });
  });
});

describe("ddsctl rules eval --all-contexts --against: the impact of a change", () => {
  let impact: Sandbox;
  beforeAll(async () => {
    impact = sandbox();
    const { Loan } = await createModels(impact, ["simple-loan"]);
    await createRules(impact, ["amount-cap"]);
    // The same rule, inactive: it has no stored evaluations, so --against dry-runs it.
    await cliJson(impact, ["rules", "create", "--name", "amount-cap-shadow", "--category", "eligibility", "--severity", "low", "--inactive", "--expression", '{"<=":[{"var":"Loan.amount"},50000]}']);
    const items = [];
    for (let i = 1; i <= 10; i++) {
      const c = await cliJson(impact, ["contexts", "create", "--name", `loan-${i}`, "--type", i % 2 ? "odd" : "even"]);
      items.push(item(c.contextId, Loan, "form", "document", { amount: i * 10000 }));
    }
    await contribute(impact, items);
  });
  afterAll(() => impact.cleanup());

  it("amounts 10000..100000, saved <= 50000, draft <= 70000: exactly 2 flip fail → pass", async () => {
    const report = await cliJson(impact, ["rules", "eval", fixture("drafts", "amount-cap-70k.json"), "--all-contexts", "--against", "amount-cap"]);
    expect(report).toMatchObject({ contexts: 10, passed: 7, failed: 3, errors: 0 });
    expect(report.against).toMatchObject({ name: "amount-cap", failToPass: 2, passToFail: 0, unchanged: 8, unknown: 0 });
    const flipped = report.results.filter((r: { flip?: string }) => r.flip).map((r: { name: string; flip: string; beforeFrom: string }) => `${r.name} ${r.flip} ${r.beforeFrom}`);
    expect(flipped.sort()).toEqual(["loan-6 fail→pass evaluation", "loan-7 fail→pass evaluation"]);
  });

  it("text: counts and the flipping contexts", async () => {
    const r = await cli(impact, ["rules", "eval", fixture("drafts", "amount-cap-70k.json"), "--all-contexts", "--against", "amount-cap"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("amount-cap over 10 context(s): 7 pass, 3 fail\n");
    expect(r.stdout).toMatch(/^against amount-cap \(\S+\): 2 would flip \(fail → pass 2, pass → fail 0\), 8 unchanged$/m);
    expect(r.stdout.match(/^fail→pass\t/gm)).toHaveLength(2);
    expect(r.stdout).toContain("FLIP\tNAME\tTYPE\tSAVED RULE'S OUTCOME\tCONTEXT ID\n");
    expect(r.stdout).toMatch(/^fail→pass\tloan-6\teven\tFAIL \(stored evaluation\)\t[0-9a-f-]{36}$/m);
    const shadow = await cli(impact, ["rules", "eval", fixture("drafts", "amount-cap-70k.json"), "--all-contexts", "--against", "amount-cap-shadow"]);
    expect(shadow.stdout).toMatch(/^fail→pass\tloan-7\todd\tFAIL \(dry run: no stored evaluation\)\t/m);
  });

  it("against a rule without stored evaluations: its dry run is the baseline", async () => {
    const report = await cliJson(impact, ["rules", "eval", fixture("drafts", "amount-cap-70k.json"), "--all-contexts", "--against", "amount-cap-shadow"]);
    expect(report.against).toMatchObject({ failToPass: 2, passToFail: 0 });
    expect(new Set(report.results.map((r: { beforeFrom: string }) => r.beforeFrom))).toEqual(new Set(["dry-run"]));
  });

  it("--filter narrows the contexts; a tighter draft flips the other way", async () => {
    const report = await cliJson(impact, ["rules", "eval", "-", "--all-contexts", "--filter", "type=even", "--against", "amount-cap"], JSON.stringify({ "<=": [{ var: "Loan.amount" }, 30000] }));
    // Even contexts: 20000..100000; saved passes 20000, 40000; draft passes 20000 only.
    expect(report).toMatchObject({ contexts: 5, passed: 1, failed: 4 });
    expect(report.against).toMatchObject({ failToPass: 0, passToFail: 1, unchanged: 4 });
  });

  it("counts only the cases the rule applies to (its context types), as the studio's impact does", async () => {
    const draft = { name: "odd-cap", category: "eligibility", severity: "low", contextTypes: ["odd"], expression: { "<=": [{ var: "Loan.amount" }, 70000] } };
    const report = await cliJson(impact, ["rules", "eval", "-", "--all-contexts"], JSON.stringify(draft));
    // Odd contexts: 10000, 30000, …, 90000; the draft passes up to 70000.
    expect(report).toMatchObject({ appliesTo: ["odd"], contexts: 5, passed: 4, failed: 1 });
    expect(report.results.every((r: { type: string }) => r.type === "odd")).toBe(true);
    const text = await cli(impact, ["rules", "eval", "-", "--all-contexts"], JSON.stringify(draft));
    expect(text.stdout).toContain("odd-cap over 5 context(s) of type odd (the rule's context types): 4 pass, 1 fail\n");

    // A bare expression compared with a saved rule takes that rule's context types.
    await cliJson(impact, ["rules", "create", "--name", "even-cap", "--category", "eligibility", "--severity", "low", "--context-types", "even", "--expression", '{"<=":[{"var":"Loan.amount"},50000]}']);
    const against = await cliJson(impact, ["rules", "eval", "-", "--all-contexts", "--against", "even-cap"], JSON.stringify({ "<=": [{ var: "Loan.amount" }, 70000] }));
    expect(against).toMatchObject({ appliesTo: ["even"], contexts: 5, passed: 3, failed: 2 });
    expect(against.against).toMatchObject({ failToPass: 1, passToFail: 0, unknown: 0 });

    // The studio's impact panel runs the same code on the same draft: the same counts.
    const service = await serviceOf(impact);
    try {
      const page = await runImpact(service, { expression: draft.expression, contextTypes: draft.contextTypes }, {});
      expect({ appliesTo: page.appliesTo, contexts: page.contexts, passed: page.passed, failed: page.failed }).toEqual({ appliesTo: ["odd"], contexts: 5, passed: 4, failed: 1 });
    } finally {
      await service.close();
    }
  });
});

/** The service the sandbox's commands reach: its database, or its remote workspace over HTTP. */
async function serviceOf(b: Sandbox): Promise<DdsService> {
  if (b.mode === "remote") return createHttpClient({ baseUrl: b.env.DDS_BASE_URL, token: b.env.DDS_API_TOKEN });
  return openLocalEngine({ db: b.db });
}

