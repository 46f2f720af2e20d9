import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLocalEngine } from "../../../src/engine/local-engine.js";
import { evaluateLocally } from "../../../src/portable/workbench/rules-eval/local-eval.js";

// A rule evaluated against a data document is one implementation: the service's dry run
// (`POST /rules/evaluate` with `data`) and the workbench's offline evaluation (`rules eval
// --data`, `rules test`, the studio's page) answer alike, trace and all.
const CASES: [string, unknown, Record<string, unknown>][] = [
  ["a dotted key", { "<=": [{ var: "Loan.dti" }, 0.45] }, { "Loan.dti": 0.3 }],
  ["a nested document", { "<=": [{ var: "Loan.dti" }, 0.45] }, { Loan: { dti: 0.5 } }],
  ["a dotted key before a walk", { var: "Loan.amount" }, { "Loan.amount": 1, Loan: { amount: 2 } }],
  ["a missing variable", { "==": [{ var: "Loan.term" }, null] }, {}],
  ["an inherited property is not read", { var: "a.toString" }, { a: {} }],
  ["scoped operators", { all: [{ var: "Applicant.scores" }, { ">=": [{ var: "" }, 600] }] }, { Applicant: { scores: [620, 700, 580] } }],
  ["a runtime error gives outcome false", { and: [true, { in: ["a", { var: "obj" }] }] }, { obj: { indexOf: 1 } }],
  ["a truthy non-boolean result", { cat: ["a", { var: "b" }] }, { b: "c" }],
  ["a falsy empty array", { merge: [] }, {}],
];

describe("a rule against a data document", () => {
  const engine = createLocalEngine({ db: join(mkdtempSync(join(tmpdir(), "ddsctl-doc-eval-")), "dds.db") });
  afterAll(() => engine.close());

  it.each(CASES)("the service's dry run and the offline evaluation agree: %s", async (_, expression, data) => {
    const offline = evaluateLocally(expression, data);
    expect(await engine.evaluateRule({ expression, data })).toStrictEqual(offline);
    expect(offline.contextId).toBeNull();
  });

  it("a runtime error is in the trace, not thrown", () => {
    const [, expression, data] = CASES.find(([name]) => name.startsWith("a runtime error"))!;
    expect(evaluateLocally(expression, data)).toMatchObject({ outcome: false, evaluationTrace: { result: null, error: expect.stringMatching(/indexOf/) } });
  });

  it("an expression a rule cannot hold is refused by both (each in its own words)", async () => {
    const expression = { nope: [] };
    expect(() => evaluateLocally(expression, {})).toThrow(/does not compile/);
    await expect(engine.evaluateRule({ expression, data: {} })).rejects.toMatchObject({ status: 422, code: "compile_failed" });
  });
});
