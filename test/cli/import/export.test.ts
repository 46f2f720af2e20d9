import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, ddsctlBinary, sandbox, type Sandbox } from "../../helpers/cli.js";
import { contribution, setupModels, snapshot, writeLines } from "./support.js";

type Line = { kind: string } & Record<string, unknown>;

let source: Sandbox;
let target: Sandbox;
let ids: string[];

/** A case with superseded evidence, a record update, a deleted record and an unnamed context. */
beforeAll(async () => {
  source = sandbox();
  target = sandbox();
  await setupModels(source, true);
  const named = (await ddsctl(source, ["contexts", "create", "--name", "case-1", "--type", "mortgage", "--json"])).json().contextId as string;
  const unnamed = (await ddsctl(source, ["contexts", "create", "--json"])).json().contextId as string;
  ids = [named, unnamed];
  const lines: string[] = [];
  for (const ref of ["case-1", unnamed]) {
    lines.push(
      contribution(ref, "Loan", "form", { amount: 240_000, propertyValue: 300_000, monthlyDebt: 2500 }),
      contribution(ref, "Loan", "valuation", { propertyValue: 320_000 }, { sourceType: "integration", fieldConfidences: { propertyValue: 0.8 } }),
      contribution(ref, "Loan", "form", { amount: 250_000, propertyValue: 300_000, monthlyDebt: 2400 }),
      contribution(ref, "Applicant", "form", { applicantId: "a1", name: "Ada", creditScore: 700 }),
      contribution(ref, "Applicant", "bureau", { applicantId: "a1", creditScore: 640 }, { sourceType: "integration", observedAt: "2026-01-02T03:04:05.000Z" }),
      contribution(ref, "Employment", "payslip", { employmentId: "e1", applicantId: "a1", monthlyIncome: 5000 }),
      contribution(ref, "Employment", "payslip", { employmentId: "e2", applicantId: "a1", monthlyIncome: 100 }),
    );
  }
  expect((await ddsctl(source, ["import", "contributions", writeLines(source, "case.ndjson", lines)])).exitCode).toBe(0);
  const records = (await ddsctl(source, ["records", "list", "--context", named, "--json", "--limit", "100"])).json().data as { recordId: string; data: Record<string, unknown> }[];
  const ada = records.find((r) => r.data.applicantId === "a1")!;
  const e2 = records.find((r) => r.data.employmentId === "e2")!;
  expect((await ddsctl(source, ["import", "records-update", writeLines(source, "upd.ndjson", [JSON.stringify({ recordId: ada.recordId, data: { name: "Ada L." } })])])).exitCode).toBe(0);
  expect((await ddsctl(source, ["records", "delete", e2.recordId])).exitCode).toBe(0);
  expect((await ddsctl(source, ["pipeline", "run"])).exitCode).toBe(0);
}, 60_000);
afterAll(() => {
  source.cleanup();
  target.cleanup();
});

describe("export", () => {
  let lines: Line[];
  it("writes models (targets first), rules, then per context its Context, Contributions, Records and Evaluations", async () => {
    const out = join(source.dir, "case.export.ndjson");
    const r = await ddsctl(source, ["export", ...ids, "--output-file", out, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ file: out, models: 3, rules: 3, contexts: 2, contributions: 14, omitted: 1 });
    const text = readFileSync(out, "utf8");
    lines = text.trim().split("\n").map((l) => JSON.parse(l) as Line);
    // Without --output-file the same lines go to stdout.
    expect((await ddsctl(source, ["export", ...ids])).stdout).toBe(text);

    const kinds = lines.map((l) => l.kind).join(" ").replace(/(\w+)( \1)+/g, "$1*");
    expect(kinds).toBe("Model* Rule* Context Contribution* Record* Evaluation* Context Contribution* Record* Evaluation*");
    expect(lines.filter((l) => l.kind === "Model").map((l) => l.name)).toEqual(["Employment", "Applicant", "Loan"]);
    expect(lines[1]).toMatchObject({ kind: "Model", name: "Applicant", identity: ["applicantId"], relationships: [{ name: "employments", target: "Employment" }] });
    expect(lines.find((l) => l.kind === "Rule")).toMatchObject({ name: "dti-limit", category: "affordability", status: "active" });
    expect(lines.find((l) => l.kind === "Context")).toEqual({ kind: "Context", name: "case-1", type: "mortgage" });
    expect(lines.filter((l) => l.kind === "Context")[1]).toEqual({ kind: "Context", name: ids[1] });
    const contributions = lines.filter((l) => l.kind === "Contribution");
    expect(Object.keys(contributions[0])).toEqual(["kind", "contextRef", "modelName", "sourceId", "sourceType", "data", "fieldConfidences"]);
    expect(contributions.find((c) => c.sourceId === "bureau")?.observedAt).toBe("2026-01-02T03:04:05.000Z");
    // The record update carries no identity of its own: the export adds the record's.
    expect(contributions.find((c) => c.sourceType === "manual")).toMatchObject({ modelName: "Applicant", data: { applicantId: "a1", name: "Ada L." } });
    // The deleted record's evidence is left out: it no longer counts.
    const inCase1 = contributions.filter((c) => c.contextRef === "case-1");
    expect(inCase1.some((c) => (c.data as { employmentId?: string }).employmentId === "e2")).toBe(false);
  });

  it("loads into another database (models and rules by their POST bodies, then import contributions) with the same final state", async () => {
    const strip = ({ kind: _kind, ...body }: Line) => body;
    for (const m of lines.filter((l) => l.kind === "Model")) {
      const created = await ddsctl(target, ["models", "create", "-f", "-", "--json"], { input: JSON.stringify(strip(m)) });
      expect(created.exitCode, created.stderr).toBe(0);
      expect((await ddsctl(target, ["models", "status", String(m.name), "active"])).exitCode).toBe(0);
    }
    for (const rule of lines.filter((l) => l.kind === "Rule")) {
      expect((await ddsctl(target, ["rules", "create", "-f", "-"], { input: JSON.stringify(strip(rule)) })).exitCode).toBe(0);
    }
    const file = join(source.dir, "case.export.ndjson");
    const r = await ddsctl(target, ["import", "contributions", file, "--create-contexts", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ created: 14, failed: 0, skipped: lines.length - 14 });
    const [a, b] = [await snapshot(source), await snapshot(target)];
    expect(b.records).toEqual(a.records);
    // Everything but the deleted record's one contribution, which was not exported.
    expect(b.contributions).toEqual({ accepted: a.contributions.accepted - 1, superseded: a.contributions.superseded });
    expect(b.contexts).toEqual([ids[1], "case-1"].sort());
    expect(b.freshness).toEqual(["resolved"]);
    const ctx = (await ddsctl(target, ["contexts", "list", "--filter", "name=case-1", "--json"])).json().data[0];
    expect(ctx.type).toBe("mortgage");
  });

  it("replays through apply + import: `apply -f case.ndjson` creates the models, rules and contexts, import the evidence", async () => {
    const third = sandbox();
    try {
      const file = join(source.dir, "case.export.ndjson");
      const applied = await ddsctl(third, ["apply", "-f", file, "--json"]);
      expect(applied.exitCode, applied.stderr).toBe(0);
      const again = await ddsctl(third, ["apply", "-f", file, "--diff"]);
      expect(again.exitCode, again.stderr).toBe(0);
      const r = await ddsctl(third, ["import", "contributions", file, "--json"]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.json()).toMatchObject({ created: 14, failed: 0 });
      expect((await snapshot(third)).records).toEqual((await snapshot(source)).records);
    } finally {
      third.cleanup();
    }
  });
});

describe("export -O in a real process", () => {
  it("writes a file of thousands of lines with nothing on stderr but the banner (no MaxListenersExceededWarning)", async () => {
    const box = sandbox();
    try {
      await setupModels(box, true);
      const lines = Array.from({ length: 1500 }, (_, i) => contribution(`bulk-${i % 30}`, "Employment", `payslip-${i}`, { employmentId: `e${i}`, applicantId: "a1", monthlyIncome: 1000 + i }));
      expect((await ddsctl(box, ["import", "contributions", writeLines(box, "bulk.ndjson", lines), "--create-contexts", "--quiet"])).exitCode).toBe(0);
      const out = join(box.dir, "all.ndjson");
      const r = await ddsctlBinary(box, ["export", "--all", "-O", out]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/Warning/);
      expect(readFileSync(out, "utf8").split("\n").filter((l) => l.includes('"kind":"Contribution"'))).toHaveLength(1500);
    } finally {
      box.cleanup();
    }
  }, 120_000);
});
