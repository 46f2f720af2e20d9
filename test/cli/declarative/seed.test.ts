import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectExit, FIXTURES, PET_MODEL, writeDoc } from "./helpers.js";

const CI = { CI: "true" };

describe("seed (CI: no terminal, CI=true)", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  it("applies the fixtures and exits 0 once every context is resolved", async () => {
    const r = await expectExit(box, ["seed", FIXTURES], 0, { env: CI });
    expect(r.stdout).toMatch(/^models: +4 \(4 created, 0 updated, 0 unchanged\)$/m);
    expect(r.stdout).toMatch(/^rules: +10 \(10 created/m);
    expect(r.stdout).toMatch(/^contexts: +30 \(30 created/m);
    expect(r.stdout).toMatch(/^contributions: +282 added$/m);
    expect(r.stdout).toMatch(/^resolved: +30\/30 context\(s\)$/m);
    const contexts = (await expectExit(box, ["contexts", "list", "--all", "--json"], 0)).json().data as { freshness: string }[];
    expect(contexts.filter((c) => c.freshness !== "resolved")).toEqual([]);
  });

  it("a rerun adds nothing and still reports every context resolved (--json)", async () => {
    const r = (await expectExit(box, ["seed", FIXTURES, "--json"], 0, { env: CI })).json();
    expect(r.apply).toMatchObject({ changed: false, summary: { contributionsAdded: 0 } });
    expect(r.wait.resolved).toHaveLength(30);
    expect(r.wait).toMatchObject({ pending: [], unresolvable: [] });
  });

  it("refused evidence exits 1 and names the document", async () => {
    const file = writeDoc(box, "refused/pets.yaml", `${PET_MODEL}---
kind: Context
name: pets-1
contributions:
  - { model: Pet, sourceId: scale, sourceType: integration, data: { petId: rex, weight: -3 } }
`);
    const r = await expectExit(box, ["seed", file], 1, { env: CI });
    expect(r.stderr).toMatch(/refused\/pets\.yaml: document 2: contributions\.0: .*weight/);
  });

  it("a rule naming a field no model has exits 1 before anything is written", async () => {
    const other = sandbox();
    try {
      const file = writeDoc(other, "bad-rule/all.yaml", `${PET_MODEL}---
kind: Rule
name: pet-height
category: data_quality
severity: low
expression: { "<=": [{ var: Pet.height }, 1] }
`);
      const r = await expectExit(other, ["seed", file], 1, { env: CI });
      expect(r.stderr).toMatch(/Rule pet-height: expression\.<=\.0\.var: "Pet\.height": Pet has no field or relationship "height" \(fields: petId, weight/);
      expect((await expectExit(other, ["models", "list", "--json"], 0)).json().models).toEqual([]);
    } finally {
      other.cleanup();
    }
  });

  it("a bad --timeout is a usage error", async () => {
    await expectExit(box, ["seed", FIXTURES, "--timeout", "soon"], 2);
  });
});
