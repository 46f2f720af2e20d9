import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectGolden } from "../../unit/workbench/golden.js";
import { cli, cliJson, createModels, createRules, mask, seedCase } from "./setup.js";

let box: Sandbox;
let contextId: string;
beforeAll(async () => {
  box = sandbox();
  const models = await createModels(box);
  await createRules(box, ["dti-limit", "credit-floor"]);
  contextId = await seedCase(box, models);
});
afterAll(() => box.cleanup());

describe("ddsctl trace <contextId> <rule>", () => {
  it("text: the tree with the deciding branch marked, each input joined to its lineage (golden)", async () => {
    const r = await cli(box, ["trace", "case-1", "credit-floor"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expectGolden("cli-trace-credit-floor", mask(r.stdout));
  });

  it("text: a computed input unfolds into what it read, down to the contributions (golden)", async () => {
    const r = await cli(box, ["trace", contextId, "dti-limit", "--paths"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expectGolden("cli-trace-dti-limit", mask(r.stdout));
  });

  it("--json: {evaluation, decidingPath, inputs} with per-record sources", async () => {
    const report = await cliJson(box, ["trace", contextId, "credit-floor"]);
    expect(Object.keys(report)).toEqual(["evaluation", "decidingPath", "inputs"]);
    expect(report.evaluation.outcome).toBe(false);
    expect(report.decidingPath.map((s: { path: string }) => s.path)).toEqual(["$", "and.1", "and.1.all.1[0]"]);
    const scores = report.inputs.find((i: { path: string }) => i.path === "Applicant.creditScore");
    expect(scores.value).toEqual([600, 680]);
    expect(scores.sources).toHaveLength(2);
    expect(scores.sources[0]).toMatchObject({ model: "Applicant", label: "applicantId=a1", field: "creditScore", value: 600, sourceType: "integration", sourceId: "bureau", confidence: 0.6, policy: "source_priority", candidates: 2 });
    expect(scores.sources[1]).toMatchObject({ label: "applicantId=a2", value: 680, sourceId: "form", candidates: 1 });
  });

  it("names the record of each element of an all, also through a relationship (rules eval uses the same tree)", async () => {
    const draft = JSON.stringify({ all: [{ var: "Loan.applicants.creditScore" }, { ">=": [{ var: "" }, 650] }] });
    const r = await cli(box, ["rules", "eval", "-", "--context", "case-1"], draft);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("all → false\n├─ var Loan.applicants.creditScore → [600, 680]\n└─ [0 Applicant applicantId=a1] >= → false  ◀ decided\n");
    // Without lineage nothing says which record an element is: the index alone.
    const bare = await cli(box, ["rules", "eval", "-", "--context", "case-1", "--no-lineage"], draft);
    expect(bare.stdout).toContain("└─ [0] >= → false  ◀ decided\n");
  });

  it("--explain fails hides the passed operand", async () => {
    const r = await cli(box, ["trace", contextId, "credit-floor", "--explain", "fails", "--no-lineage"]);
    expect(r.stdout).toContain("├─ … 1 passed hidden");
    expect(r.stdout).not.toContain("var Loan.amount");
    expect(r.stdout).not.toContain("inputs:\n  Loan.amount = 240000\n    Loan");
  });

  it("a bad --explain is a usage error", async () => {
    const r = await cli(box, ["trace", contextId, "credit-floor", "--explain", "some"]);
    expect(r.exitCode).toBe(2);
  });

  it("without a rule: every evaluation as a summary", async () => {
    const r = await cli(box, ["trace", contextId]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe("RULE\tSEVERITY\tOUTCOME\tFRESHNESS");
    expect(r.stdout).toMatch(/^credit-floor\tmedium\tFAIL\tresolved$/m);
    expect(r.stdout).toMatch(/^dti-limit\thigh\tPASS\tresolved$/m);
    const page = await cliJson(box, ["trace", contextId]);
    expect(page.data).toHaveLength(2);
  });
});
