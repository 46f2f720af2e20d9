import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { cli, cliJson, contribute, createModels, createRules, item, seedCase } from "./setup.js";

let box: Sandbox;
let models: Record<string, string>;
let contextId: string;
let otherId: string;
let snapshot: string;
let before: string;
let payslip: string;
beforeAll(async () => {
  box = sandbox();
  models = await createModels(box);
  await createRules(box, ["dti-limit", "credit-floor"]);
  contextId = await seedCase(box, models);
  // A second case where Bo earns less: dti 2500 / ((60000 + 12000) / 12) = 0.4166…
  otherId = await seedCase(box, models, "case-2", 1000);
  snapshot = join(box.dir, "before.json");
  writeFileSync(snapshot, (await cli(box, ["trace", contextId, "dti-limit", "--json"])).stdout);
  await new Promise((r) => setTimeout(r, 20));
  before = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 20));
  // Bo's new payslip: 500 a month. dti = 2500 / ((60000 + 6000) / 12) = 0.4545… > 0.43.
  await contribute(box, [item(contextId, models.Employment, "payslip-2", "document", { employmentId: "e2", applicantId: "a2", monthlyIncome: 500 })]);
  const contributions = await cliJson(box, ["contributions", "list", "--filter", "sourceId=payslip-2"]);
  payslip = contributions.data[0].contributionId;
});
afterAll(() => box.cleanup());

describe("ddsctl trace diff", () => {
  it("--since <snapshot>: the outcome flip, the chain down to the changed input, before and now", async () => {
    const d = await cliJson(box, ["trace", "diff", contextId, "dti-limit", "--since", snapshot]);
    expect(d.against).toEqual({ kind: "snapshot", file: snapshot });
    expect(d.outcome).toEqual({ old: true, new: false });
    expect(d.changes.map((c: { path: string; op: string }) => `${c.path} ${c.op}`)).toEqual(["$ <=", "<=.0 var"]);
    expect(d.changes[1].old).toBe(0.3125);
    expect(d.changes[1].new).toBeCloseTo(0.4545, 3);
    expect(d.inputs).toHaveLength(1);
    expect(d.inputs[0].path).toBe("Loan.dti");
    expect(d.inputs[0].previousSources[0].value).toBe(0.3125);
    const text = (await cli(box, ["trace", "diff", contextId, "dti-limit", "--since", snapshot])).stdout;
    expect(text).toContain("outcome: PASS → FAIL\nfirst change: $ <=: true → false\n   └─ <=.0 var: 0.3125 → 0.45454545454545453  ◀ origin\n");
    expect(text).toMatch(/ {12}Employment employmentId=e2 \S+ via Applicant.employments → 500 ← \S+ document:payslip-2/);
  });

  it("--since <time>: the context as it was then, and the contribution received since that supplies the value now", async () => {
    const d = await cliJson(box, ["trace", "diff", contextId, "dti-limit", "--since", before]);
    expect(d.against.kind).toBe("time");
    expect(d.outcome).toEqual({ old: true, new: false });
    expect(d.changes[d.changes.length - 1]).toMatchObject({ path: "<=.0", old: 0.3125 });
    const since = d.inputs[0].receivedSince;
    expect(since).toHaveLength(1);
    expect(since[0]).toMatchObject({ contributionId: payslip, field: "monthlyIncome", value: 500, sourceId: "payslip-2", winning: true });
    const text = (await cli(box, ["trace", "diff", "case-1", "dti-limit", "--since", before])).stdout;
    expect(text).toContain(`received since:\n      ${payslip} document:payslip-2 record `);
    expect(text).toContain("monthlyIncome=500 confidence 1 received ");
  });

  it("--against-context: another case's evaluation, with both sides' sources", async () => {
    const d = await cliJson(box, ["trace", "diff", contextId, "dti-limit", "--against-context", "case-2"]);
    expect(d.against).toEqual({ kind: "context", contextId: otherId });
    expect(d.outcome).toEqual({ old: true, new: false });
    expect(d.inputs[0].old).toBeCloseTo(0.41667, 4);
    expect(d.inputs[0].previousSources[0].recordId).not.toBe(d.inputs[0].sources[0].recordId);
  });

  it("the header names the contexts and the rule as the user named them, with their ids", async () => {
    const ruleId = (await cliJson(box, ["rules", "get", "dti-limit"])).ruleId;
    const text = (await cli(box, ["trace", "diff", "case-1", "dti-limit", "--against-context", "case-2"])).stdout;
    expect(text.split("\n").slice(0, 3)).toEqual([`context: case-1 (${contextId})`, `rule:    dti-limit (${ruleId})`, `against: context case-2 (${otherId})`]);
    // Given as ids, they are shown as ids.
    expect((await cli(box, ["trace", "diff", contextId, ruleId, "--since", before])).stdout.split("\n")[0]).toBe(`context: ${contextId}`);
  });

  it("an unchanged rule: no change", async () => {
    const d = await cliJson(box, ["trace", "diff", contextId, "credit-floor", "--since", before]);
    expect(d).toMatchObject({ outcome: { old: false, new: false }, changes: [], inputs: [] });
    const text = (await cli(box, ["trace", "diff", contextId, "credit-floor", "--since", before])).stdout;
    expect(text).toContain("no node of the evaluation changed");
  });

  it("needs --since or --against-context, and a readable --since", async () => {
    expect((await cli(box, ["trace", "diff", contextId, "dti-limit"])).exitCode).toBe(2);
    expect((await cli(box, ["trace", "diff", contextId, "dti-limit", "--since", "yesterday"])).exitCode).toBe(2);
    const notSnapshot = join(box.dir, "x.json");
    writeFileSync(notSnapshot, "{}");
    expect((await cli(box, ["trace", "diff", contextId, "dti-limit", "--since", notSnapshot])).exitCode).toBe(2);
  });
});
