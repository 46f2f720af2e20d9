// Issue 3 (d): traced rule evaluation vs json-logic-js `apply`, same rules, same data.
import jsonLogic from "json-logic-js";
import { performance } from "node:perf_hooks";
import { compileExpression } from "../../dist/portable/json-logic/index.js";
import { RULES, rng } from "./workload.mjs";

function dataset(n) {
  const r = rng(11);
  const out = [];
  for (let i = 0; i < n; i++) {
    const applicants = 1 + Math.floor(r() * 3);
    out.push({
      Loan: { amount: 50000 + r() * 600000, propertyValue: 100000 + r() * 800000, monthlyDebt: r() * 4000, dti: r() * 0.8, ltv: r() * 1.2 },
      Applicant: {
        creditScore: Array.from({ length: applicants }, () => 500 + Math.floor(r() * 350)),
        annualIncome: Array.from({ length: applicants }, () => 20000 + r() * 100000),
        applicantId: Array.from({ length: applicants }, (_, k) => `a${k}`),
      },
    });
  }
  return out;
}

function time(fn) {
  const t0 = performance.now();
  fn();
  return (performance.now() - t0) / 1000;
}

/** Runs (d) and returns result rows and the ratio. */
export async function runEvalBench({ cases = 20000 } = {}) {
  // json-logic-js lacks the project's `count` and array `min`; register equivalents so both
  // engines run the very same ten rules.
  jsonLogic.add_operation("count", (a) => (Array.isArray(a) ? a.length : 0));
  const jlMin = (...args) => (args.length === 1 && Array.isArray(args[0]) ? (args[0].length ? Math.min(...args[0]) : null) : Math.min(...args));
  const data = dataset(cases);
  const compiled = RULES.map((r) => compileExpression(r.expression));
  const evaluations = cases * RULES.length;
  // warm up both
  for (let i = 0; i < 2000; i++) for (const c of compiled) c.evaluate(data[i], { trace: true });
  const run = (fn) => Math.min(time(fn), time(fn), time(fn));
  const ours = run(() => {
    for (const d of data) for (const c of compiled) c.evaluate(d, { trace: true });
  });
  const saved = jsonLogic.apply;
  jsonLogic.add_operation("min", jlMin);
  for (let i = 0; i < 2000; i++) for (const r of RULES) saved(r.expression, data[i]);
  const theirs = run(() => {
    for (const d of data) for (const r of RULES) jsonLogic.apply(r.expression, d);
  });
  return [
    { name: "(d) traced evaluation (ddsctl), 10 rules", rows: evaluations, seconds: ours },
    { name: "(d) json-logic-js apply, untraced, same rules and data", rows: evaluations, seconds: theirs },
    { name: "d traced ddsctl vs untraced json-logic-js", ratio: theirs / ours, target: ">= 1.00", targetValue: 1 },
  ];
}
