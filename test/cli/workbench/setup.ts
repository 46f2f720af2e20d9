import { join } from "node:path";
import { expect } from "vitest";
import { ddsctl, type RunResult, type Sandbox } from "../../helpers/cli.js";

/** The workbench's own fixture set (models, rules, drafts, cases). */
export const FIXTURES = join(import.meta.dirname, "fixtures");
export const fixture = (...parts: string[]) => join(FIXTURES, ...parts);

/** Runs the real binary; asserts no stack trace leaked. */
export async function cli(box: Sandbox, args: string[], input?: string): Promise<RunResult> {
  const r = await ddsctl(box, args, input === undefined ? {} : { input });
  expect(r.stderr, `stack trace in stderr of ddsctl ${args.join(" ")}`).not.toMatch(/^ {4}at /m);
  return r;
}

/** Runs with --json and returns the parsed stdout, asserting exit 0. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests index freely into API JSON
export async function cliJson(box: Sandbox, args: string[], input?: string): Promise<any> {
  const r = await cli(box, [...args, "--json"], input);
  expect(r.exitCode, `ddsctl ${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r.json();
}

/** Creates and activates the fixture models; returns their ids by name. */
export async function createModels(box: Sandbox, names = ["employment", "applicant", "loan"]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const file of names) {
    const model = await cliJson(box, ["models", "create", "-f", fixture("models", `${file}.json`)]);
    await cliJson(box, ["models", "status", model.name, "active"]);
    ids[model.name] = model.modelId;
  }
  return ids;
}

/** Creates the fixture rules named (file names without .json). */
export async function createRules(box: Sandbox, names: string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const name of names) ids[name] = (await cliJson(box, ["rules", "create", "-f", fixture("rules", `${name}.json`)])).ruleId;
  return ids;
}

/** One bulk contribution item. */
export function item(contextId: string, modelId: string, sourceId: string, sourceType: string, data: object, fieldConfidences?: object) {
  return { contextId, modelId, sourceId, sourceType, data, ...(fieldConfidences ? { fieldConfidences } : {}) };
}

/** Adds contributions in one bulk call (the CLI drains the pipeline before it exits). */
export async function contribute(box: Sandbox, items: object[]): Promise<void> {
  const r = await cliJson(box, ["contributions", "add", "-f", "-"], JSON.stringify({ items }));
  expect(r.summary.failed, JSON.stringify(r.items)).toBe(0);
}

/**
 * The mortgage case of the workbench tests: one context `case-1` with a loan, two
 * applicants (a1 with conflicting credit scores, one superseded), two employments.
 * credit-floor fails (a1's bureau score 600 wins by source priority); dti-limit passes.
 */
export async function seedCase(box: Sandbox, models: Record<string, string>, name = "case-1", income2 = 3000): Promise<string> {
  const contextId = (await cliJson(box, ["contexts", "create", "--name", name, "--type", "mortgage"])).contextId;
  const { Loan, Applicant, Employment } = models;
  await contribute(box, [
    item(contextId, Loan, "form", "document", { amount: 240000, propertyValue: 300000, monthlyDebt: 2500 }),
    item(contextId, Loan, "valuation", "integration", { propertyValue: 320000 }, { propertyValue: 0.8 }),
    item(contextId, Loan, "bank", "integration", { monthlyDebt: 2600 }, { monthlyDebt: 0.9 }),
    item(contextId, Loan, "applicant", "user", { monthlyDebt: 2500 }, { monthlyDebt: 0.7 }),
    item(contextId, Applicant, "form", "document", { applicantId: "a1", name: "Ada", creditScore: 700 }),
    item(contextId, Applicant, "bureau", "integration", { applicantId: "a1", creditScore: 600 }, { creditScore: 0.6 }),
    item(contextId, Applicant, "broker", "user", { applicantId: "a1", creditScore: 800 }, { creditScore: 0.2 }),
    item(contextId, Applicant, "form", "document", { applicantId: "a2", name: "Bo", creditScore: 680 }),
    item(contextId, Employment, "payslip", "document", { employmentId: "e1", applicantId: "a1", monthlyIncome: 5000 }),
    item(contextId, Employment, "payslip", "document", { employmentId: "e2", applicantId: "a2", monthlyIncome: income2 }),
  ]);
  // The same source again for a1: supersedes its first form contribution.
  await contribute(box, [item(contextId, Applicant, "form", "document", { applicantId: "a1", name: "Ada", creditScore: 710 })]);
  return contextId;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

/** Masks ids (numbered by first appearance, so repeats stay visible) and timestamps. */
export function mask(text: string): string {
  const ids = new Map<string, string>();
  return text.replace(UUID, (id) => {
    if (!ids.has(id)) ids.set(id, `<id${ids.size + 1}>`);
    return ids.get(id)!;
  }).replace(TIME, "<time>");
}
