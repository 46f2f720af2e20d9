/**
 * `rules test`: runs the cases of each suite against its rule and measures branch
 * coverage. Cases with `data` are evaluated offline by the engine's pure compiler; only a
 * saved rule (`rule: <name>`) or a `context` case needs the service, which is opened
 * lazily, so a suite of data cases with an inline or file rule runs without a database.
 */
export type { CaseResult };
import { basename, dirname, extname, resolve } from "node:path";
import type { DdsService } from "../../../contract/service.js";
import { resolveRef } from "../../../portable/names/resolve-ref.js";
import type { LoadedSuite } from "./cases-file.js";
import { coverageOf, percentOf, type CoverageReport } from "../../../portable/workbench/rules-test/coverage.js";
import { assertRuleExpression, assertRulePaths } from "../../../portable/workbench/rules-eval/local-eval.js";
import { allModels } from "../../../portable/workbench/trace/lineage-reader.js";
import { readRuleSource } from "../rule-source.js";
import { runCase, type CaseResult } from "../../../portable/workbench/rules-test/rules-test-case.js";
import { alignTrace } from "../../../portable/workbench/trace/trace-align.js";

/** One suite's result. */
export interface SuiteResult {
  name: string;
  file: string;
  rule: { source: "saved" | "file" | "inline"; name?: string; ruleId?: string; file?: string };
  /** Set when the rule could not be loaded or compiled: every case failed. */
  error?: string;
  cases: CaseResult[];
  coverage: CoverageReport;
}

/** What `rules test --json` prints. */
export interface TestReport {
  suites: SuiteResult[];
  summary: { suites: number; cases: number; passed: number; failed: number; coverage: { covered: number; total: number; percent: number | null } };
}

interface LoadedRule {
  expression: unknown;
  rule: SuiteResult["rule"];
  name: string;
}

async function loadRule(suite: LoadedSuite, service: () => Promise<DdsService>): Promise<LoadedRule> {
  const fallback = `${basename(suite.file)}#${suite.index}`;
  if (typeof suite.rule === "string") {
    const s = await service();
    const saved = await s.getRule(await resolveRef(s, "rule", suite.rule));
    return { expression: saved.expression, rule: { source: "saved", name: saved.name, ruleId: saved.ruleId }, name: saved.name };
  }
  if ("file" in suite.rule) {
    const file = resolve(dirname(suite.file), suite.rule.file);
    const source = await readRuleSource(undefined, file);
    const name = source.name ?? basename(file, extname(file));
    return { expression: source.expression, rule: { source: "file", file, ...(source.name ? { name: source.name } : {}) }, name };
  }
  return { expression: suite.rule.expression, rule: { source: "inline" }, name: fallback };
}

/** Runs one suite: every case in order, then the coverage of its traces. */
export async function runSuite(suite: LoadedSuite, service: () => Promise<DdsService>): Promise<SuiteResult> {
  let loaded: LoadedRule;
  try {
    loaded = await loadRule(suite, service);
    assertRuleExpression(loaded.expression);
    // A suite that reads the service anyway checks the rule's paths against its models
    // (a saved rule may read a field removed since); data-only suites stay offline.
    if (typeof suite.rule === "string" || suite.cases.some((c) => c.data === undefined)) {
      assertRulePaths(loaded.expression, await allModels(await service()));
    }
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    const name = suite.name ?? (typeof suite.rule === "string" ? suite.rule : `${basename(suite.file)}#${suite.index}`);
    const cases = suite.cases.map((c): CaseResult => ({ name: c.name, passed: false, expected: c.expect, outcome: null, failures: [error], against: c.data !== undefined ? "data" : "context" }));
    return { name, file: suite.file, rule: { source: typeof suite.rule === "string" ? "saved" : "file" in suite.rule ? "file" : "inline" }, error, cases, coverage: { covered: 0, total: 0, percent: null, uncovered: [] } };
  }
  const cases: CaseResult[] = [];
  for (const c of suite.cases) cases.push(await runCase(c, loaded.expression, service));
  const traces = cases.flatMap((c) => (c.evaluation ? [alignTrace(c.evaluation.evaluationTrace.steps, loaded.expression)] : []));
  return { name: suite.name ?? loaded.name, file: suite.file, rule: loaded.rule, cases, coverage: coverageOf(loaded.expression, traces) };
}

/** Runs every suite and sums up: cases passed/failed and coverage over all branches. */
export async function runSuites(suites: LoadedSuite[], service: () => Promise<DdsService>): Promise<TestReport> {
  const results: SuiteResult[] = [];
  for (const suite of suites) results.push(await runSuite(suite, service));
  const cases = results.flatMap((s) => s.cases);
  const covered = results.reduce((n, s) => n + s.coverage.covered, 0);
  const total = results.reduce((n, s) => n + s.coverage.total, 0);
  const passed = cases.filter((c) => c.passed).length;
  return {
    suites: results,
    summary: { suites: results.length, cases: cases.length, passed, failed: cases.length - passed, coverage: { covered, total, percent: percentOf(covered, total) } },
  };
}
