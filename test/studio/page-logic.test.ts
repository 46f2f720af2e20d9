/**
 * The page's own pure logic, without a browser: the record graph's layout (columns by
 * relationship, aggregation, counted bundles, removed links) and the rule document's
 * checks with their places in the text.
 */
import { describe, expect, it } from "vitest";
import type { DdsRecord, Model } from "../../src/contract/schemas/index.js";
import { AGGREGATE_OVER, layoutGraph, type GraphLink } from "../../web/src/components/graph-layout.js";
import { formatBody, parseRuleText } from "../../web/src/editor/rule-document.js";

const model = (modelId: string, name: string, identity: string[], relationships: Model["relationships"] = []) => ({ modelId, name, identity, relationships }) as unknown as Model;
const record = (recordId: string, modelId: string, data: Record<string, unknown> = {}) => ({ recordId, modelId, data, issues: [] }) as unknown as DdsRecord;

const MODELS = [
  model("m-loan", "Loan", [], [{ name: "applicants", target: "Applicant", cardinality: "many" } as never, { name: "property", target: "Property", cardinality: "one" } as never]),
  model("m-app", "Applicant", ["applicantId"], [{ name: "loan", target: "Loan", cardinality: "one" } as never, { name: "employments", target: "m-emp", cardinality: "many" } as never]),
  model("m-emp", "Employment", ["employmentId"], [{ name: "loan", target: "Loan", cardinality: "one" } as never]),
  model("m-prop", "Property", []),
];
const link = (source: string, name: string, target: string, removedAt: string | null = null): GraphLink => ({ source, name, target, removedAt });

describe("the record graph's layout", () => {
  it("puts the parent model first however the links cycle back, and draws a removed link as removed", () => {
    const records = [record("loan", "m-loan"), record("a1", "m-app", { applicantId: "a1" }), record("e1", "m-emp", { employmentId: "e1" }), record("p", "m-prop")];
    const links = [link("loan", "applicants", "a1"), link("a1", "loan", "loan"), link("a1", "employments", "e1"), link("e1", "loan", "loan"), link("loan", "property", "p", "2026-01-01T00:00:00.000Z")];
    const g = layoutGraph(records, links, MODELS);
    const x = (id: string) => g.nodes.find((n) => n.id === id)!.x;
    expect(x("loan")).toBeLessThan(x("a1"));
    expect(x("a1")).toBe(x("p"));
    expect(x("a1")).toBeLessThan(x("e1"));
    expect(g.nodes.find((n) => n.id === "a1")!.label).toBe("applicantId=a1");
    const removed = g.edges.filter((e) => e.removed);
    expect(removed.map((e) => [e.from.id, e.name, e.to.id, e.removedAt])).toEqual([["loan", "property", "p", "2026-01-01T00:00:00.000Z"]]);
  });

  it("aggregates a model past the limit into one node and its links into counted bundles", () => {
    const n = AGGREGATE_OVER + 1;
    const records = [record("loan", "m-loan"), ...Array.from({ length: n }, (_, i) => record(`a${i}`, "m-app", { applicantId: `a${i}` }))];
    const links = Array.from({ length: n }, (_, i) => link("loan", "applicants", `a${i}`));
    const g = layoutGraph(records, links, MODELS);
    expect(g.nodes.map((x) => [x.id, x.count])).toEqual([
      ["loan", undefined],
      ["model:Applicant", n],
    ]);
    expect(g.edges.map((e) => [e.name, e.count])).toEqual([["applicants", n]]);
  });
});

describe("the rule document", () => {
  const body = { name: "dti", description: "", category: "affordability", severity: "high", contextTypes: ["mortgage"], expression: { "<=": [{ var: "Loan.dti" }, 0.43] } };

  it("reads YAML and JSON alike, and round-trips the body", () => {
    for (const format of ["yaml", "json"] as const) expect(parseRuleText(formatBody(body, format))).toEqual({ body, problems: [] });
  });

  it("places each problem where it is in the text", () => {
    const text = formatBody({ ...body, severity: "huge", extra: 1, expression: { "<=": [{ var: "Loan.__proto__.x" }, 1] } }, "yaml");
    const { body: parsed, problems } = parseRuleText(text);
    expect(parsed).toBeUndefined();
    const at = (m: RegExp) => problems.find((p) => m.test(p.message))!;
    expect(text.slice(at(/severity must be/).from, at(/severity must be/).to)).toBe("huge");
    expect(text.slice(at(/unknown property "extra"/).from).startsWith("extra")).toBe(true);
    expect(at(/expression at/).message).toMatch(/reserved segment/);
    expect(text.slice(at(/expression at/).from, at(/expression at/).to)).toContain("Loan.__proto__.x");
  });

  it("given the models, marks a path no model has where it is read, saying what the model has", () => {
    const models = [{ modelId: "m-loan", name: "Loan", fields: [{ name: "dti" }, { name: "amount" }], relationships: [] }];
    expect(parseRuleText(formatBody(body, "yaml"), models)).toEqual({ body, problems: [] });
    const text = formatBody({ ...body, expression: { and: [{ "<=": [{ var: "Loan.dti" }, 0.43] }, { "<=": [{ var: "Loan.noSuchField" }, 1] }] } }, "yaml");
    const { body: parsed, problems } = parseRuleText(text, models);
    expect(parsed).toBeUndefined();
    expect(problems.map((p) => p.message)).toEqual(['expression at and.1.<=.0.var: "Loan.noSuchField": Loan has no field or relationship "noSuchField" (fields: dti, amount; relationships: none)']);
    expect(text.slice(problems[0].from, problems[0].to)).toContain("Loan.noSuchField");
    // Without the models (not loaded yet) only what the expression itself gets wrong is marked.
    expect(parseRuleText(text).problems).toEqual([]);
  });

  it("reports a syntax error with its position", () => {
    const { problems } = parseRuleText('{"name": "x", "expression": [1, }');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0].from).toBeGreaterThan(0);
  });
});
