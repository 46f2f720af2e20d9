/**
 * The rule being edited, as a JSON or YAML document of the editable properties (what
 * `PATCH /rules/{id}` takes). Parsing reports every problem with its place in the text:
 * syntax first, then the properties, then the expression (the engine's own validator, so
 * the page refuses exactly what the service would).
 */
import { isMap, isScalar, parseDocument, stringify, type Document, type YAMLMap } from "yaml";
import { RULE_CATEGORIES, RULE_SEVERITIES } from "../../../src/contract/constants.js";
import type { Rule, RulePatch } from "../../../src/contract/schemas/index.js";
import { validateRuleExpression } from "../../../src/portable/json-logic/index.js";
import { checkRulePaths, type RulePathModel } from "../../../src/portable/rule-paths.js";

/** The document's format. */
export type RuleFormat = "yaml" | "json";

/** A problem and where it is (character offsets). */
export interface DocProblem {
  from: number;
  to: number;
  message: string;
}

/** The editable part of a rule. */
export type RuleBody = Required<Pick<RulePatch, "name" | "category" | "severity" | "expression" | "contextTypes">> & { description: string };

const KEYS = ["name", "description", "category", "severity", "contextTypes", "expression"];

/** The editable body of a saved rule. */
export function bodyOf(rule: Rule): RuleBody {
  return { name: rule.name, description: rule.description, category: rule.category, severity: rule.severity, contextTypes: rule.contextTypes, expression: rule.expression };
}

/** The body as text. */
export function formatBody(body: unknown, format: RuleFormat): string {
  return format === "json" ? `${JSON.stringify(body, null, 2)}\n` : stringify(body, { flowCollectionPadding: false, lineWidth: 100 });
}

function rangeOf(doc: Document, path: (string | number)[], length: number): [number, number] {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return [node.range[0], Math.max(node.range[0] + 1, node.range[1])];
  }
  return [0, Math.max(1, length)];
}

/**
 * Parses and checks the text; `body` is set only when there is no problem. Given the
 * workspace's models, the expression's paths are checked against them too (a field no
 * model has is marked where it is read, as the service would refuse it).
 */
export function parseRuleText(text: string, models?: readonly RulePathModel[]): { body?: RuleBody; problems: DocProblem[] } {
  // YAML 1.2 reads JSON too, with positions: one parser for both formats.
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const problems: DocProblem[] = doc.errors.map((e) => ({ from: e.pos[0], to: Math.max(e.pos[1], e.pos[0] + 1), message: e.message.split("\n")[0] }));
  if (problems.length > 0) return { problems };
  const at = (path: (string | number)[], message: string) => {
    const [from, to] = rangeOf(doc, path, text.length);
    problems.push({ from, to, message });
  };
  const value: unknown = doc.toJS();
  if (!isMap(doc.contents) || value === null || typeof value !== "object" || Array.isArray(value)) {
    at([], "the rule must be an object with name, category, severity and expression");
    return { problems };
  }
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v)) {
    if (KEYS.includes(k)) continue;
    // The key itself is marked (the value may be long, or another document).
    const key = (doc.contents as YAMLMap).items.find((p) => isScalar(p.key) && p.key.value === k)?.key as { range?: [number, number] } | undefined;
    const [from, to] = key?.range ?? rangeOf(doc, [k], text.length);
    problems.push({ from, to, message: `unknown property "${k}"; a rule has ${KEYS.join(", ")}` });
  }
  if (typeof v.name !== "string" || v.name.trim() === "") at(["name"], "name must be a non-empty string");
  if (v.description !== undefined && v.description !== null && typeof v.description !== "string") at(["description"], "description must be a string");
  if (!(RULE_CATEGORIES as readonly unknown[]).includes(v.category)) at(["category"], `category must be one of ${RULE_CATEGORIES.join(", ")}`);
  if (!(RULE_SEVERITIES as readonly unknown[]).includes(v.severity)) at(["severity"], `severity must be one of ${RULE_SEVERITIES.join(", ")}`);
  const types = v.contextTypes;
  if (types !== undefined && !(Array.isArray(types) && types.every((t) => typeof t === "string"))) at(["contextTypes"], "contextTypes must be a list of strings");
  if (!("expression" in v)) at([], "expression is required");
  else {
    const invalid = validateRuleExpression(v.expression);
    const found = invalid.length === 0 && models !== undefined ? checkRulePaths(v.expression, models) : invalid;
    for (const p of found) {
      // Problem paths alternate operator and argument index (`and.1.var`), as the text nests.
      const path = p.path === "" ? [] : p.path.split(".").map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      at(["expression", ...path], `expression${p.path ? ` at ${p.path}` : ""}: ${p.message}`);
    }
  }
  if (problems.length > 0) return { problems };
  return { body: { name: (v.name as string).trim(), description: (v.description as string | undefined) ?? "", category: v.category as RuleBody["category"], severity: v.severity as RuleBody["severity"], contextTypes: (types as string[] | undefined) ?? [], expression: v.expression }, problems };
}

/** The properties that differ from the saved rule (the PATCH body). */
export function patchOf(saved: Rule, body: RuleBody): RulePatch {
  const before = bodyOf(saved) as Record<string, unknown>;
  const patch: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(body)) if (JSON.stringify(val) !== JSON.stringify(before[k])) patch[k] = val;
  return patch as RulePatch;
}
