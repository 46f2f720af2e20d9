import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { contribution, modelIds, readRejects, setupModels, writeLines, type Summary } from "./support.js";

let box: Sandbox;
let models: Record<string, string>;
beforeEach(async () => {
  box = sandbox();
  await setupModels(box);
  models = await modelIds(box);
});
afterEach(() => box.cleanup());

async function contexts(): Promise<{ contextId: string; name: string | null; type: string | null; metadata: object }[]> {
  return (await ddsctl(box, ["contexts", "list", "--json"])).json().data;
}

describe("modelName, contextRef and --create-contexts", () => {
  it("resolves names to ids, creates each missing context once (from its Context line when the file has one)", async () => {
    const unnamed = (await ddsctl(box, ["contexts", "create", "--json"])).json().contextId as string;
    const lines = [
      JSON.stringify({ kind: "Context", name: "case-b", type: "mortgage", metadata: { region: "west" } }),
      contribution("case-a", "Loan", "form", { amount: 200_000 }),
      contribution("case-a", "Applicant", "form", { applicantId: "a1", name: "Ada" }),
      contribution("case-b", "Loan", "form", { amount: 300_000 }),
      JSON.stringify({ contextId: unnamed, modelId: models.Loan, sourceId: "form", sourceType: "document", data: { amount: 400_000 } }),
      contribution(unnamed, "Loan", "other", { amount: 410_000 }),
      JSON.stringify({ contextRef: "case-a", modelName: "Loan", modelId: models.Loan, sourceId: "x", sourceType: "user", data: {} }),
      JSON.stringify({ contextRef: "case-a", contextId: unnamed, modelName: "Loan", sourceId: "x", sourceType: "user", data: {} }),
      JSON.stringify({ kind: "Contribution", contextRef: "case-b", modelName: "Applicant", sourceId: "form", sourceType: "document", data: { applicantId: "b1", name: "Bo" } }),
    ];
    const file = writeLines(box, "refs.ndjson", lines);
    const r = await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--json"]);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.json<Summary>()).toMatchObject({ lines: 9, created: 6, failed: 2, skipped: 1 });
    expect(readRejects(`${file}.rejects.ndjson`).map((x) => [x.line, x.error.detail])).toEqual([
      [7, "give modelName or modelId, not both"],
      [8, "give contextRef or contextId, not both"],
    ]);
    const all = await contexts();
    expect(all.map((c) => c.name).sort()).toEqual(["case-a", "case-b", null].sort());
    expect(all.find((c) => c.name === "case-b")).toMatchObject({ type: "mortgage", metadata: { region: "west" } });
    // The pipeline ran for the touched contexts before the command returned.
    const records = (await ddsctl(box, ["records", "list", "--limit", "100", "--json"])).json().data as { freshness: string; contextId: string }[];
    expect(records).toHaveLength(5);
    expect(records.every((x) => x.freshness === "resolved")).toBe(true);
    expect(records.filter((x) => x.contextId === unnamed)).toHaveLength(1);
  });
});

describe("import records-update and records-delete", () => {
  async function twoRecords(): Promise<string[]> {
    const file = writeLines(box, "seed.ndjson", [
      contribution("case-1", "Applicant", "form", { applicantId: "a1", name: "Ada" }),
      contribution("case-1", "Applicant", "form", { applicantId: "a2", name: "Bo" }),
    ]);
    expect((await ddsctl(box, ["import", "contributions", file, "--create-contexts"])).exitCode).toBe(0);
    const records = (await ddsctl(box, ["records", "list", "--json", "--sort", "createdAt"])).json().data as { recordId: string }[];
    return records.map((x) => x.recordId);
  }

  it("updates records from {recordId, data} lines, reports unknown records per line, and a rerun replays", async () => {
    const [a1, a2] = await twoRecords();
    const lines = [
      JSON.stringify({ recordId: a1, data: { creditScore: 710 } }),
      JSON.stringify({ recordId: "00000000-0000-7000-8000-00000000abcd", data: { creditScore: 1 } }),
      JSON.stringify({ recordId: a2, data: { creditScore: "high" } }),
      JSON.stringify({ kind: "Record", recordId: a2 }),
    ];
    const file = writeLines(box, "updates.ndjson", lines);
    const r = await ddsctl(box, ["import", "records-update", file, "--json"]);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.json<Summary>()).toMatchObject({ lines: 4, created: 1, failed: 2, skipped: 1 });
    expect(readRejects(`${file}.rejects.ndjson`).map((x) => [x.line, x.error.code])).toEqual([
      [2, "not_found"],
      [3, "validation_failed"],
    ]);
    const ada = (await ddsctl(box, ["records", "get", a1, "--json"])).json();
    expect(ada).toMatchObject({ freshness: "resolved", data: { creditScore: 710 } });
    const manual = (await ddsctl(box, ["contributions", "list", "--filter", "sourceType=manual", "--json"])).json().data;
    expect(manual).toHaveLength(1);
    const again = await ddsctl(box, ["import", "records-update", file, "--json"]);
    expect(again.json<Summary>()).toMatchObject({ failed: 2 });
    expect((await ddsctl(box, ["contributions", "list", "--filter", "sourceType=manual", "--json"])).json().data).toHaveLength(1);
  });

  it("deletes records from {recordId} lines; a rerun is answered from the first run instead of failing with 404", async () => {
    const [a1, a2] = await twoRecords();
    const file = writeLines(box, "deletes.ndjson", [JSON.stringify({ recordId: a1 }), JSON.stringify({ recordId: a2, why: "typo" })]);
    const r = await ddsctl(box, ["import", "records-delete", file, "--json"]);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.json<Summary>()).toMatchObject({ lines: 2, created: 1, failed: 1 });
    expect(readRejects(`${file}.rejects.ndjson`)[0].error.errors?.[0]?.message).toMatch(/unknown property "why"/);
    expect((await ddsctl(box, ["records", "get", a1])).exitCode).toBe(4);
    const again = await ddsctl(box, ["import", "records-delete", file, "--json"]);
    expect(again.exitCode, again.stderr).toBe(3);
    expect(again.json<Summary>()).toMatchObject({ created: 1, failed: 1 });
    expect((await ddsctl(box, ["records", "list", "--json"])).json().data.map((x: { recordId: string }) => x.recordId)).toEqual([a2]);
  });
});
