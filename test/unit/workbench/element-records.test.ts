import { describe, expect, it } from "vitest";
import { compileExpression, TRACE_ELEMENT_CAP } from "../../../src/portable/json-logic/index.js";
import { renderTraceNodes } from "../../../src/cli/workbench/trace/render-trace.js";
import { elementLabels, elementSourcePaths } from "../../../src/portable/workbench/trace/element-records.js";
import type { InputExplanation, InputSource } from "../../../src/portable/workbench/trace/input-sources.js";
import { alignTrace } from "../../../src/portable/workbench/trace/trace-align.js";

const N = 250;
const scores = Array.from({ length: N }, (_, i) => (i === 2 ? 500 : 700 + i));
const source = (i: number): InputSource => ({ recordId: `r${i}`, model: "Applicant", label: `applicantId=a${i}`, field: "creditScore", value: scores[i], contributionId: null, sourceId: null, sourceType: null, confidence: null, policy: null, candidates: 1 });
const inputs: InputExplanation[] = [{ path: "Applicant.creditScore", value: scores, sources: scores.map((_, i) => source(i)) }];

function traced(expression: unknown) {
  const run = compileExpression(expression).evaluate({ get: (p: string) => (p === "Applicant.creditScore" ? scores : undefined) }, { trace: true });
  return alignTrace(run.steps!, expression);
}

describe("the records of per-element sub-trees", () => {
  it("labels each traced element of an all over 250 records with its record, the deciding one included", () => {
    const expression = { and: [true, { all: [{ var: "Applicant.creditScore" }, { ">=": [{ var: "" }, 620] }] }] };
    const root = traced(expression);
    expect(elementSourcePaths(root)).toEqual(["Applicant.creditScore"]);
    const labels = elementLabels(root, inputs);
    expect([...labels]).toEqual([
      ["and.1.all.1[0]", "Applicant applicantId=a0"],
      ["and.1.all.1[1]", "Applicant applicantId=a1"],
      ["and.1.all.1[2]", "Applicant applicantId=a2"],
    ]);
    const lines = renderTraceNodes(root, { explain: "fails", elementLabels: labels });
    expect(lines).toContain("   └─ [2 Applicant applicantId=a2] >= → false  ◀ decided");
  });

  it("labels every element the trace keeps when more run than it keeps", () => {
    const root = traced({ some: [{ var: "Applicant.creditScore" }, { "<": [{ var: "" }, 0] }] });
    const labels = elementLabels(root, inputs);
    expect(labels.size).toBe(TRACE_ELEMENT_CAP);
    expect(labels.get(`some.1[${TRACE_ELEMENT_CAP - 1}]`)).toBe(`Applicant applicantId=a${TRACE_ELEMENT_CAP - 1}`);
  });

  it("leaves elements unlabelled when the array is not a rule input, or its lineage does not match it", () => {
    const computed = traced({ all: [{ filter: [{ var: "Applicant.creditScore" }, { ">": [{ var: "" }, 0] }] }, { ">=": [{ var: "" }, 620] }] });
    // The filter walks the records (its elements are labelled); the all walks what it kept (not).
    const keys = [...elementLabels(computed, inputs).keys()];
    expect(keys.length).toBe(TRACE_ELEMENT_CAP);
    expect(keys.every((k) => k.startsWith("all.0.filter.1["))).toBe(true);
    const root = traced({ all: [{ var: "Applicant.creditScore" }, { ">=": [{ var: "" }, 620] }] });
    expect(elementLabels(root, [{ ...inputs[0], sources: inputs[0].sources.slice(1) }]).size).toBe(0);
    // Paths inside the elements are the element's own: never taken for rule inputs.
    const nested = traced({ map: [{ var: "Applicant.creditScore" }, { all: [{ var: "Applicant.creditScore" }, true] }] });
    expect(elementSourcePaths(nested)).toEqual(["Applicant.creditScore"]);
  });
});
