import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectGolden } from "../../unit/workbench/golden.js";
import { cli, cliJson, createModels, mask, seedCase } from "./setup.js";

let box: Sandbox;
let ada: string;
let loan: string;
beforeAll(async () => {
  box = sandbox();
  const models = await createModels(box);
  const contextId = await seedCase(box, models);
  const records = (await cliJson(box, ["records", "list", "--context", contextId])).data as { recordId: string; modelId: string; data: Record<string, unknown> }[];
  ada = records.find((r) => r.data.applicantId === "a1")!.recordId;
  loan = records.find((r) => r.modelId === models.Loan)!.recordId;
});
afterAll(() => box.cleanup());

describe("ddsctl records explain on conflicting evidence", () => {
  it("every candidate of a field: picked by source priority, superseded, below minConfidence", async () => {
    const e = await cliJson(box, ["records", "explain", ada, "creditScore"]);
    expect(e.fields).toHaveLength(1);
    const f = e.fields[0];
    expect(f).toMatchObject({ field: "creditScore", value: 600, policy: "source_priority", minConfidence: 0.5, sourcePriority: ["integration", "document", "user"] });
    expect(f.winner).toBe(f.lineage.contributionId);
    const rows = f.candidates.map((c: { sourceId: string; value: number; picked: boolean; candidate: boolean; reason: string }) => [c.sourceId, c.value, c.picked, c.candidate, c.reason]);
    const supersededBy = f.candidates.find((c: { value: number }) => c.value === 710).contributionId;
    expect(rows).toEqual([
      ["form", 700, false, false, `superseded by ${supersededBy}`],
      ["bureau", 600, true, true, "source priority: integration before document"],
      ["broker", 800, false, false, "below minConfidence 0.5: ignored"],
      ["form", 710, false, true, "source priority: document after integration"],
    ]);
  });

  it("majority and max, and computed fields with what they read (golden)", async () => {
    const r = await cli(box, ["records", "explain", loan]);
    expect(r.exitCode, r.stderr).toBe(0);
    expectGolden("cli-records-explain-loan", mask(r.stdout));
  });

  it("an unknown field is 404", async () => {
    expect((await cli(box, ["records", "explain", loan, "nope"])).exitCode).toBe(4);
  });
});
