import type { Evaluation, Rule } from "../../contract/schemas/index.js";
import type { Column, Output } from "../output/output.js";
import { statusStyle } from "./models.js";

/** `PASS` in green or `FAIL` in red. */
export function outcomeText(out: Output, outcome: boolean): string {
  return outcome ? out.c.green("PASS") : out.c.red("FAIL");
}

/** Severity colouring: high and critical stand out. */
export function severityStyle(out: Output) {
  return (text: string): string => (text === "critical" ? out.c.red(text) : text === "high" ? out.c.yellow(text) : text);
}

/** Columns of the rule list. */
export function ruleColumns(out: Output): Column<Rule>[] {
  return [
    { header: "NAME", get: (r) => r.name },
    { header: "CATEGORY", get: (r) => r.category },
    { header: "SEVERITY", get: (r) => r.severity, style: severityStyle(out) },
    { header: "STATUS", get: (r) => r.status, style: statusStyle(out) },
    { header: "VERSION", get: (r) => r.version },
    { header: "CONTEXT TYPES", get: (r) => r.contextTypes.join(",") || "(all)" },
    { header: "RULE ID", get: (r) => r.ruleId },
  ];
}

/** Renders one rule with its expression pretty-printed. */
export function renderRule(out: Output, r: Rule): void {
  if (out.options.json) return out.json(r);
  out.fields([
    ["name", r.name],
    ["ruleId", r.ruleId],
    ["status", statusStyle(out)(r.status)],
    ["category", r.category],
    ["severity", severityStyle(out)(r.severity)],
    ["version", r.version],
    ["description", r.description || "-"],
    ["contextTypes", r.contextTypes.join(", ") || "(all)"],
    ["updatedAt", r.updatedAt],
  ]);
  out.line();
  out.line(out.c.dim("expression:"));
  for (const line of JSON.stringify(r.expression, null, 2).split("\n")) out.line(`  ${line}`);
}

/** Which columns an evaluation table shows: by context (rule columns) or by rule (contexts). */
export interface EvaluationColumnOptions {
  /** Add a CONTEXT ID column (listing one rule's evaluations across contexts). */
  context?: boolean;
  /** Only rule, severity, outcome, freshness (the `trace <contextId>` summary). */
  brief?: boolean;
}

/** Columns of an evaluation table. */
export function evaluationColumns(out: Output, options: EvaluationColumnOptions = {}): Column<Evaluation>[] {
  const cols: Column<Evaluation>[] = [];
  if (options.context) cols.push({ header: "CONTEXT ID", get: (e) => e.contextId });
  cols.push({ header: "RULE", get: (e) => e.rule.name });
  if (!options.brief) cols.push({ header: "CATEGORY", get: (e) => e.rule.category });
  cols.push(
    { header: "SEVERITY", get: (e) => e.rule.severity, style: severityStyle(out) },
    { header: "OUTCOME", get: (e) => (e.outcome ? "PASS" : "FAIL"), style: (t, e) => (e.outcome ? out.c.green(t) : out.c.red(t)) },
    { header: "FRESHNESS", get: (e) => e.freshness, style: statusStyle(out) },
  );
  if (!options.brief) cols.push({ header: "RULE VERSION", get: (e) => e.ruleVersion }, { header: "COMPUTED AT", get: (e) => e.computedAt });
  return cols;
}
