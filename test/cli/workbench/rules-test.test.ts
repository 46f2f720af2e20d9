import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { parseXml } from "../../unit/workbench/xml.js";
import { cli, cliJson, createModels, createRules, fixture, seedCase } from "./setup.js";

describe("ddsctl rules test: offline cases (data only, rules from files or inline)", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  it("runs every cases file of a directory without opening a database", async () => {
    const r = await cli(box, ["rules", "test", fixture("cases")]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    // No target banner: the service was never opened (nor, locally, the database created).
    expect(r.stderr).toBe("");
    if (box.mode === "local") expect(existsSync(box.db)).toBe(false);
    expect(r.stdout).toContain("  PASS  good scores pass\n  PASS  one low score fails\n  PASS  a tiny loan fails first\n  coverage 5/5 branches (100%)\n");
    expect(r.stdout).toContain("  coverage 2/3 branches (66.7%)\n    not exercised: $ if: condition 1 taken\n");
    expect(r.stdout).toMatch(/3 suite\(s\), 7 case\(s\): 7 passed, 0 failed; branch coverage 10\/14 \(71\.4%\)\n$/);
  });

  it("--json: exact coverage per rule and overall, and the unexercised branches", async () => {
    const report = await cliJson(box, ["rules", "test", fixture("cases")]);
    const bySuite = Object.fromEntries(report.suites.map((s: { name: string; coverage: unknown }) => [s.name, s.coverage]));
    expect(bySuite).toEqual({
      "credit-floor": { covered: 5, total: 5, percent: 100, uncovered: [] },
      "any flag": { covered: 3, total: 6, percent: 50, uncovered: ["$ or: operand 1 true", "$ or: all false", "or.2 some: false"] },
      "score tiers": { covered: 2, total: 3, percent: 66.7, uncovered: ["$ if: condition 1 taken"] },
    });
    expect(report.summary).toEqual({ suites: 3, cases: 7, passed: 7, failed: 0, coverage: { covered: 10, total: 14, percent: 71.4 } });
  });

  it("--threshold: exit 1 when an untested branch brings coverage below it", async () => {
    const below = await cli(box, ["rules", "test", fixture("cases"), "--threshold", "100"]);
    expect(below.exitCode).toBe(1);
    expect(below.stderr).toContain("branch coverage 71.4% is below the threshold 100%");
    expect((await cli(box, ["rules", "test", fixture("cases"), "--threshold", "70"])).exitCode).toBe(0);
    expect((await cli(box, ["rules", "test", fixture("cases", "credit.cases.yaml"), "--threshold", "100"])).exitCode).toBe(0);
    expect((await cli(box, ["rules", "test", fixture("cases"), "--threshold", "abc"])).exitCode).toBe(2);
    const json = await cli(box, ["rules", "test", fixture("cases"), "--threshold", "100", "--json"]);
    expect(json.exitCode).toBe(1);
    expect(json.json()).toMatchObject({ threshold: 100, thresholdMet: false });
  });

  it("--junit writes well-formed JUnit XML with coverage properties", async () => {
    const path = join(box.dir, "rules.xml");
    expect((await cli(box, ["rules", "test", fixture("cases"), "--junit", path])).exitCode).toBe(0);
    const doc = parseXml(readFileSync(path, "utf8"));
    expect(doc.attrs).toMatchObject({ tests: "7", failures: "0" });
    expect(doc.children.map((s) => s.attrs.name)).toEqual(["credit-floor", "any flag", "score tiers"]);
    const tiers = doc.children[2];
    const props = tiers.children.find((c) => c.name === "properties")!.children;
    expect(props.map((p) => `${p.attrs.name}=${p.attrs.value}`)).toEqual(["coverage=66.7", "branches.covered=2", "branches.total=3", "uncovered=$ if: condition 1 taken"]);
    expect(tiers.children.filter((c) => c.name === "testcase").map((c) => c.attrs.name)).toEqual(["low score declines", "high score approves"]);
  });

  it("a malformed cases file is a usage error naming the problem", async () => {
    const r = await cli(box, ["rules", "test", "-"]);
    expect(r.exitCode).toBe(2);
    const bad = join(box.dir, "bad.cases.json");
    writeFileSync(bad, JSON.stringify({ rule: { expression: true }, cases: [{ name: "x", expect: true }] }));
    const r2 = await cli(box, ["rules", "test", bad]);
    expect(r2.exitCode).toBe(2);
    expect(r2.stderr).toMatch(/cases\.0: give exactly one of data and context/);
  });
});

describe("ddsctl rules test: saved rules and stored contexts", () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = sandbox();
    const models = await createModels(box);
    await createRules(box, ["dti-limit"]);
    await seedCase(box, models);
  });
  afterAll(() => box.cleanup());

  it("a failing case: exit 1, its unmet expectations and its trace", async () => {
    const r = await cli(box, ["rules", "test", fixture("cases-failing")]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("  PASS  stored case passes\n");
    expect(r.stdout).toContain(
      [
        "  FAIL  wrong expectation",
        "        expected outcome true, got false",
        "        expected <=.0 = 0.4, got 0.5",
        "        <= → false  @$",
        "        ├─ var Loan.dti → 0.5  @<=.0",
        "        └─ 0.43  @<=.1",
      ].join("\n"),
    );
    expect(r.stdout).toContain("1 suite(s), 2 case(s): 1 passed, 1 failed; branch coverage 0/0 (n/a: no branches)");
    const report = (await cli(box, ["rules", "test", fixture("cases-failing"), "--json"])).json();
    expect(report.suites[0].rule).toMatchObject({ source: "saved", name: "dti-limit" });
    expect(report.suites[0].cases[0]).not.toHaveProperty("evaluation");
    expect(report.suites[0].cases[1].evaluation.outcome).toBe(false);
  });

  it("a rule reading a field no model has fails every case of a suite that reads the service, saying so", async () => {
    const file = `${box.dir}/unknown.cases.yaml`;
    writeFileSync(file, `rule: { expression: { "<=": [{ var: Loan.noSuchField }, 1] } }
cases:
  - { name: stored case, context: case-1, expect: true }
  - { name: document case, data: { Loan.noSuchField: 0 }, expect: true }
`);
    const r = await cli(box, ["rules", "test", file, "--json"]);
    expect(r.exitCode).toBe(1);
    const suite = r.json().suites[0];
    expect(suite.error).toMatch(/^expression does not compile: "Loan\.noSuchField": Loan has no field or relationship "noSuchField" \(fields: /);
    expect(suite.cases.map((c: { passed: boolean }) => c.passed)).toEqual([false, false]);
    // A suite of data cases only runs offline: the document is all it reads.
    writeFileSync(file, `rule: { expression: { "<=": [{ var: Loan.noSuchField }, 1] } }
cases:
  - { name: document case, data: { Loan.noSuchField: 0 }, expect: true }
`);
    expect((await cli(box, ["rules", "test", file])).exitCode).toBe(0);
  });
});
