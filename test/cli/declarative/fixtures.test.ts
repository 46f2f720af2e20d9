import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyDocuments, loadDocuments } from "../../../src/cli/declarative/index.js";
import { RULE_CATEGORIES, RULE_SEVERITIES } from "../../../src/contract/constants.js";
import { createLocalEngine, type LocalEngine } from "../../../src/engine/local-engine.js";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { FIXTURES } from "./helpers.js";

/** The README's case table: context name → the rules it says fail. */
function documentedOutcomes(): Map<string, string[]> {
  const rows = readFileSync(join(FIXTURES, "README.md"), "utf8").split("\n").filter((l) => /^\| \d\d \| `/.test(l));
  return new Map(
    rows.map((row) => {
      const cells = row.split("|").map((c) => c.trim());
      const fails = [...cells[5].matchAll(/`([a-z-]+)`/g)].map((m) => m[1]).sort();
      return [cells[2].replace(/`/g, ""), fails];
    }),
  );
}

describe("fixtures/mortgage (in-process, against the local engine)", () => {
  let box: Sandbox;
  let engine: LocalEngine;
  beforeAll(() => {
    box = sandbox();
    engine = createLocalEngine({ db: box.db });
  });
  afterAll(async () => {
    await engine.close();
    box.cleanup();
  });

  it("cover every rule category and severity with ten rules, and thirty cases", () => {
    const docs = loadDocuments(FIXTURES).map((d) => d.doc);
    const rules = docs.filter((d) => d.kind === "Rule") as { category: string; severity: string }[];
    expect(rules).toHaveLength(10);
    expect(new Set(rules.map((r) => r.category))).toEqual(new Set(RULE_CATEGORIES));
    expect(new Set(rules.map((r) => r.severity))).toEqual(new Set(RULE_SEVERITIES));
    expect(docs.filter((d) => d.kind === "Context")).toHaveLength(30);
    const sources = new Set(docs.flatMap((d) => (d.kind === "Context" ? (d.contributions ?? []).map((c) => c.sourceType) : [])));
    expect(sources).toEqual(new Set(["document", "integration", "user", "manual"]));
  });

  it("resolve to exactly the outcomes the README's table documents", async () => {
    const applied = await applyDocuments(engine, loadDocuments(FIXTURES), { dryRun: false });
    expect(applied.failures).toEqual([]);
    const run = await engine.runPipeline({ contextIds: applied.contextIds });
    expect(run.pending).toEqual([]);
    const documented = documentedOutcomes();
    expect(documented.size).toBe(30);
    const actual = new Map<string, string[]>();
    for (const id of applied.contextIds) {
      const context = await engine.getContext(id);
      const evaluations = (await engine.listContextEvaluations(id, { limit: 500 })).data;
      expect(evaluations).toHaveLength(10);
      actual.set(context.name!, evaluations.filter((e) => !e.outcome).map((e) => e.rule.name).sort());
    }
    expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(documented));
    const passing = [...actual.values()].filter((f) => f.length === 0).length;
    expect(passing).toBe(12);
  });

  it("are idempotent: a second apply plans no change", async () => {
    const again = await applyDocuments(engine, loadDocuments(FIXTURES), { dryRun: true });
    expect(again.changed).toBe(false);
    expect(again.items.every((i) => i.action === "unchanged")).toBe(true);
  });
});
