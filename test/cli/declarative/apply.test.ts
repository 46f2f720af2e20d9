import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectExit, FIXTURES, PET_MODEL, petRule, writeDoc } from "./helpers.js";

describe("apply -f fixtures/mortgage/", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  it("--dry-run prints the plan and writes nothing", async () => {
    const r = await expectExit(box, ["apply", "-f", FIXTURES, "--dry-run"], 0);
    expect(r.stdout).toMatch(/^model\/Loan created \(dry run\)$/m);
    expect(r.stdout).toMatch(/^rule\/max-debt-to-income created \(dry run\)$/m);
    expect(r.stdout).toMatch(/^context\/okafor-purchase created, 9 contribution\(s\) to add \(dry run\)$/m);
    // Nothing written: locally not even the database file; remotely nothing in the workspace.
    if (box.mode === "local") expect(existsSync(box.db)).toBe(false);
    else {
      expect((await expectExit(box, ["models", "list", "--json"], 0)).json().models).toEqual([]);
      expect((await expectExit(box, ["contexts", "list", "--json"], 0)).json().data).toEqual([]);
    }
  });

  it("creates every model (active), rule and context with its evidence, and resolves them", async () => {
    const r = await expectExit(box, ["apply", "-f", FIXTURES, "--json"], 0);
    const result = r.json();
    expect(result).toMatchObject({ dryRun: false, changed: true, summary: { create: 44, update: 0, unchanged: 0, contributionsAdded: 282 }, failures: [] });
    const models = (await expectExit(box, ["models", "list", "--json"], 0)).json().models as { name: string; status: string }[];
    expect(models.map((m) => [m.name, m.status]).sort()).toEqual([["Applicant", "active"], ["Employment", "active"], ["Loan", "active"], ["Property", "active"]]);
    const contexts = (await expectExit(box, ["contexts", "list", "--all", "--json"], 0)).json().data as { freshness: string }[];
    expect(contexts).toHaveLength(30);
    expect(contexts.every((c) => c.freshness === "resolved")).toBe(true);
  });

  it("a second run changes nothing, says so, and --diff exits 0 with no output", async () => {
    const r = await expectExit(box, ["apply", "-f", FIXTURES], 0);
    expect(r.stderr).toMatch(/^no changes$/m);
    expect(r.stdout.split("\n").filter((l) => l && !l.endsWith(" unchanged"))).toEqual([]);
    const diff = await expectExit(box, ["apply", "-f", FIXTURES, "--diff"], 0);
    expect(diff.stdout).toBe("");
    expect((await expectExit(box, ["contributions", "list", "--all", "--json"], 0)).json().data).toHaveLength(282);
  });

  it("--diff exits 1 and names the change when a rule differs; apply then makes it 0 again", async () => {
    const changed = writeDoc(box, "edited/affordability.yaml", (await import("node:fs")).readFileSync(`${FIXTURES}/rules/affordability.yaml`, "utf8").replace("0.43]", "0.45]"));
    const diff = await expectExit(box, ["apply", "-f", changed, "--diff"], 1);
    expect(diff.stdout).toContain("~ rule/max-debt-to-income  (edited/affordability.yaml: document 1)");
    expect(diff.stdout).toContain("~ expression.and.1.<=.1: 0.43 → 0.45");
    expect(diff.stdout).not.toContain("residual-income");
    const applied = await expectExit(box, ["apply", "-f", changed, "--json"], 0);
    expect(applied.json().items.map((i: { action: string }) => i.action)).toEqual(["update", "unchanged"]);
    const rule = (await expectExit(box, ["rules", "get", "max-debt-to-income", "--json"], 0)).json();
    expect(rule.version).toBe(2);
    await expectExit(box, ["apply", "-f", changed, "--diff"], 0);
  });
});

describe("apply: updates by name", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  it("adds, replaces and removes fields of an active model, then reports no changes", async () => {
    const file = writeDoc(box, "pet.yaml", `${PET_MODEL}---\n${petRule()}`);
    await expectExit(box, ["apply", "-f", file], 0);
    const next = PET_MODEL.replace("validation: { min: 0 }", "validation: { min: 0, max: 200 }") + "  - { name: breed, type: string }\n  - name: heavy\n    type: boolean\n    computed: { expression: { \">\": [{ var: weight }, 30] } }\n";
    writeDoc(box, "pet.yaml", `${next}---\n${petRule()}`);
    const r = await expectExit(box, ["apply", "-f", file], 0);
    expect(r.stdout).toMatch(/^model\/Pet updated$/m);
    const model = (await expectExit(box, ["models", "get", "Pet", "--json"], 0)).json();
    expect(model.fields.map((f: { name: string }) => f.name)).toEqual(["petId", "weight", "breed", "heavy"]);
    expect(model.fields[1].validation).toEqual({ min: 0, max: 200 });
    expect(model.status).toBe("active");
    writeDoc(box, "pet.yaml", `${PET_MODEL}---\n${petRule()}`);
    await expectExit(box, ["apply", "-f", file], 0);
    const back = (await expectExit(box, ["models", "get", "Pet", "--json"], 0)).json();
    expect(back.fields.map((f: { name: string }) => f.name)).toEqual(["petId", "weight"]);
    expect((await expectExit(box, ["apply", "-f", file], 0)).stderr).toMatch(/^no changes$/m);
  });

  it("refuses what the lifecycle forbids before writing anything (exit 1; --diff exits 2)", async () => {
    const file = writeDoc(box, "pet-identity.yaml", `${PET_MODEL.replace("identity: [petId]", "identity: [petId, weight]")}---\n${petRule(10, "high")}`);
    const r = await expectExit(box, ["apply", "-f", file], 1);
    expect(r.stderr).toMatch(/identity cannot change once a model is active/);
    expect((await expectExit(box, ["rules", "get", "pet-weight", "--json"], 0)).json().severity).toBe("low");
    await expectExit(box, ["apply", "-f", file, "--diff"], 2);
  });

  it("refuses a rule reading what no model will have before writing anything (exit 1; --diff exits 2)", async () => {
    const unknown = writeDoc(box, "pet-height.yaml", `${PET_MODEL}---\n${petRule().replace("Pet.weight", "Pet.height").replace("pet-weight", "pet-height")}`);
    const r = await expectExit(box, ["apply", "-f", unknown], 1);
    expect(r.stderr).toMatch(/^error: cannot apply .*pet-height\.yaml: document 2: Rule pet-height: expression\.all\.0\.var: "Pet\.height": Pet has no field or relationship "height" \(fields: petId, weight; relationships: none\)$/m);
    await expectExit(box, ["apply", "-f", unknown, "--diff"], 2);
    expect((await expectExit(box, ["rules", "list", "--json"], 0)).json().data.map((x: { name: string }) => x.name)).not.toContain("pet-height");
    // The rule is fine today, but the model's document removes the field it reads.
    const removed = writeDoc(box, "pet-no-weight.yaml", `${PET_MODEL.replace("  - { name: weight, type: number, validation: { min: 0 } }\n", "  - { name: breed, type: string }\n")}---\n${petRule()}`);
    const r2 = await expectExit(box, ["apply", "-f", removed, "--json"], 1);
    const problem = JSON.parse(r2.stderr.split("\n").filter((l) => l.startsWith("{"))[0]);
    expect(problem).toMatchObject({ status: 422, code: "compile_failed" });
    expect(problem.errors[0].message).toBe('"Pet.weight": Pet has no field or relationship "weight" (fields: petId, breed; relationships: none)');
    expect((await expectExit(box, ["models", "get", "Pet", "--json"], 0)).json().fields.map((f: { name: string }) => f.name)).toContain("weight");
  });

  it("adds only new evidence to a context found by name; a changed value supersedes the old one", async () => {
    const ctx = (extra = "") => `kind: Context
name: kennel-1
type: kennel
metadata: { site: north }
contributions:
  - { model: Pet, sourceId: vet, sourceType: document, data: { petId: rex, weight: 31 }, fieldConfidences: { weight: 0.9 } }
${extra}`;
    const file = writeDoc(box, "kennel.yaml", ctx());
    expect((await expectExit(box, ["apply", "-f", file], 0)).stdout).toContain("context/kennel-1 created, 1 contribution(s) added");
    await expectExit(box, ["apply", "-f", file, "--diff"], 0);
    writeDoc(box, "kennel.yaml", ctx("  - { model: Pet, sourceId: vet, sourceType: document, data: { petId: rex, weight: 29 } }\n").replace("north", "south"));
    const diff = await expectExit(box, ["apply", "-f", file, "--diff"], 1);
    expect(diff.stdout).toContain('~ metadata.site: "north" → "south"');
    expect(diff.stdout).toContain("+ 1 contribution(s)");
    await expectExit(box, ["apply", "-f", file], 0);
    await expectExit(box, ["apply", "-f", file, "--diff"], 0);
    const id = (await expectExit(box, ["contexts", "list", "--filter", "name=kennel-1", "--json"], 0)).json().data[0].contextId;
    const contributions = (await expectExit(box, ["contributions", "list", "--filter", `contextId=${id}`, "--json"], 0)).json().data as { status: string; data: { weight: number } }[];
    expect(contributions.map((c) => [c.data.weight, c.status]).sort()).toEqual([[29, "accepted"], [31, "superseded"]]);
    // Going back to the first value: the document's last word for that source must be current again.
    writeDoc(box, "kennel.yaml", ctx().replace("north", "south"));
    const again = await expectExit(box, ["apply", "-f", file, "--json"], 0);
    expect(again.json().summary.contributionsAdded).toBe(1);
    await expectExit(box, ["apply", "-f", file, "--diff"], 0);
  });

  it("reads JSON arrays and standard input", async () => {
    const docs = [{ kind: "Model", name: "Toy", fields: [{ name: "colour", type: "string" }], status: "draft" }];
    writeDoc(box, "toys.json", JSON.stringify(docs));
    const r = await expectExit(box, ["apply", "-f", "toys.json", "--json"], 0);
    expect(r.json().items[0]).toMatchObject({ kind: "Model", name: "Toy", action: "create", source: "toys.json: document 1" });
    expect((await expectExit(box, ["models", "get", "Toy", "--json"], 0)).json().status).toBe("draft");
    const piped = await expectExit(box, ["apply", "-f", "-", "--diff"], 0, { input: "kind: Model\nname: Toy\nstatus: draft\nfields: [{ name: colour, type: string }]\n" });
    expect(piped.stdout).toBe("");
  });
});

describe("apply: bad documents exit 2 and name file and document", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  const cases: [string, string, RegExp][] = [
    ["unknown kind", `${PET_MODEL}---\nkind: Modle\nname: x\n`, /bad\.yaml: document 2: unknown kind "Modle" \(expected Model, Rule or Context\)/],
    ["missing kind", "name: x\nfields: []\n", /bad\.yaml: document 1: no kind/],
    ["invalid rule", "kind: Rule\nname: r\ncategory: taste\nseverity: low\nexpression: true\n", /bad\.yaml: document 1: Rule\.category/],
    ["unknown property", "kind: Model\nname: M\nfields: []\ncolour: red\n", /bad\.yaml: document 1: Model: unknown property "colour"/],
    ["broken YAML", "kind: Model\nname: [unclosed\n", /bad\.yaml: document 1: not valid YAML/],
    ["an empty file (the docs: exit 2, never \"no changes\")", "", /^error: bad\.yaml: is empty: give a JSON or YAML document$/m],
    ["a file of comments only", "# nothing yet\n---\n", /^error: bad\.yaml: is empty: give a JSON or YAML document$/m],
    ["a name twice", `${PET_MODEL}---\n${PET_MODEL}`, /bad\.yaml: document 2: Model\/Pet is already declared in bad\.yaml: document 1/],
    ["an unknown model in evidence", "kind: Context\nname: c\ncontributions: [{ model: Ghost, sourceId: s, sourceType: user, data: {} }]\n", /no model named "Ghost"/],
  ];
  for (const [what, text, message] of cases) {
    it(what, async () => {
      writeDoc(box, "bad.yaml", text);
      const r = await expectExit(box, ["apply", "-f", "bad.yaml"], 2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
      await expectExit(box, ["apply", "-f", "bad.yaml", "--diff"], 2);
    });
  }

  it("a missing path, and a directory without documents", async () => {
    expect((await expectExit(box, ["apply", "-f", "nope/"], 2)).stderr).toMatch(/nope\/: no such file or directory/);
    writeDoc(box, "empty/readme.txt", "nothing here");
    expect((await expectExit(box, ["apply", "-f", "empty"], 2)).stderr).toMatch(/holds no \*\.json, \*\.yaml or \*\.yml files/);
    const r = await ddsctl(box, ["apply"]);
    expect(r.exitCode).toBe(2);
  });

  it("nothing was written by any of them", async () => {
    expect((await expectExit(box, ["models", "list", "--json"], 0)).json().models).toEqual([]);
  });
});
