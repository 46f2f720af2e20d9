import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../helpers/cli.js";
import { createModel, expectErrorLine, expectProblem, ISO, ok, run, runBody, setStatus, uniq, UUID } from "./support.js";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API JSON
async function model(status: "draft" | "active" | "archived" = "draft"): Promise<any> {
  const m = await createModel(box, { name: uniq("Loan"), fields: [{ name: "amount", type: "number" }, { name: "term", type: "integer" }] });
  if (status !== "draft") await setStatus(box, "models", m.name, "active");
  if (status === "archived") await setStatus(box, "models", m.name, "archived");
  return ok(await run(box, ["models", "get", m.modelId, "--json"]));
}

describe("fields add", () => {
  it("adds a field to a draft model (201 body: the field with its fieldId)", async () => {
    const m = await model();
    const f = ok(await runBody(box, ["fields", "add", m.name], { name: "purpose", type: "enum", validation: { values: ["purchase", "refinance"] } }));
    expect(Object.keys(f).sort()).toEqual(["computed", "createdAt", "description", "fieldId", "modelId", "name", "required", "resolution", "type", "updatedAt", "validation"]);
    expect(f).toMatchObject({ modelId: m.modelId, name: "purpose", type: "enum", required: false, description: "", computed: null });
    expect(f.fieldId).toMatch(UUID);
    expect(f.createdAt).toMatch(ISO);
    const after = ok(await run(box, ["models", "get", m.name, "--json"]));
    expect(after.fields.map((x: { name: string }) => x.name)).toEqual(["amount", "term", "purpose"]);
  });

  it("adds a field to an active model with flags and bumps the model version", async () => {
    const m = await model("active");
    const f = ok(await run(box, ["fields", "add", m.modelId, "--name", "rate", "--type", "number", "--required", "--json"]));
    expect(f).toMatchObject({ name: "rate", type: "number", required: true, modelId: m.modelId });
    const after = ok(await run(box, ["models", "get", m.name, "--json"]));
    expect(after.status).toBe("active");
    expect(after.version).toBe(m.version + 1);
    expect(after.fields.at(-1)).toEqual(f);
  });

  it("answers name_taken for a duplicate field name", async () => {
    const m = await model();
    expectProblem(await run(box, ["fields", "add", m.name, "--name", "amount", "--type", "number", "--json"]), 1, 409, "name_taken");
  });

  it("needs -f or --name (usage error, exit 2)", async () => {
    const m = await model();
    expectErrorLine(await run(box, ["fields", "add", m.name]), 2, /--name/);
  });
});

describe("fields get and list", () => {
  it("scoped get (model + name) and global get (fieldId) return identical JSON", async () => {
    const m = await model();
    const amount = m.fields[0];
    const scoped = ok(await run(box, ["fields", "get", m.name, "amount", "--json"]));
    const global = ok(await run(box, ["fields", "get", amount.fieldId, "--json"]));
    const byModelId = ok(await run(box, ["fields", "get", m.modelId, "amount", "--json"]));
    expect(scoped).toEqual(amount);
    expect(global).toEqual(scoped);
    expect(byModelId).toEqual(scoped);
  });

  it("lists a model's fields in the {data, nextCursor, hasNextPage} envelope, by name or by filter", async () => {
    const m = await model();
    await model();
    const byName = ok(await run(box, ["fields", "list", m.name, "--json"]));
    expect(Object.keys(byName).sort()).toEqual(["data", "hasNextPage", "nextCursor"]);
    expect(byName).toEqual({ data: m.fields, nextCursor: null, hasNextPage: false });
    const byFilter = ok(await run(box, ["fields", "list", "--filter", `modelId=${m.modelId}`, "--json"]));
    expect(byFilter).toEqual(byName);
    const all = ok(await run(box, ["fields", "list", "--json"]));
    expect(all.data.length).toBeGreaterThan(m.fields.length);
  });

  it("pages the global field list with --limit and --cursor", async () => {
    const m = await model();
    const p1 = ok(await run(box, ["fields", "list", m.name, "--limit", "1", "--json"]));
    expect(p1.data.map((f: { name: string }) => f.name)).toEqual(["amount"]);
    expect(p1.hasNextPage).toBe(true);
    const p2 = ok(await run(box, ["fields", "list", m.name, "--limit", "1", "--cursor", p1.nextCursor, "--json"]));
    expect(p2).toEqual({ data: [m.fields[1]], nextCursor: null, hasNextPage: false });
  });

  it("an unknown field name is 404 (exit 4)", async () => {
    const m = await model();
    expectProblem(await run(box, ["fields", "get", m.name, "nosuch", "--json"]), 4, 404, "not_found");
  });
});

describe("fields update (PUT)", () => {
  it("renames a field: the fieldId stays, the old name is 404 (exit 4)", async () => {
    const m = await model("active");
    const amount = m.fields[0];
    const f = ok(await runBody(box, ["fields", "update", m.name, "amount"], { name: "loanAmount", type: "number", description: "principal" }));
    expect(f).toMatchObject({ fieldId: amount.fieldId, modelId: m.modelId, name: "loanAmount", description: "principal", createdAt: amount.createdAt });
    expect(ok(await run(box, ["fields", "get", amount.fieldId, "--json"]))).toEqual(f);
    expectErrorLine(await run(box, ["fields", "get", m.name, "amount"]), 4, /not found/);
    expect(ok(await run(box, ["models", "get", m.name, "--json"])).version).toBe(m.version + 1);
  });

  it("replaces the mutable properties (omitted ones reset), by fieldId too", async () => {
    const m = await model();
    const term = m.fields[1];
    const first = ok(await runBody(box, ["fields", "update", term.fieldId], { name: "term", type: "integer", required: true, validation: { min: 1, max: 480 } }));
    expect(first).toMatchObject({ fieldId: term.fieldId, required: true, validation: { min: 1, max: 480 } });
    const second = ok(await runBody(box, ["fields", "update", term.fieldId], { name: "term", type: "number" }));
    expect(second).toMatchObject({ fieldId: term.fieldId, type: "number", required: false, validation: null });
  });

  it("changing the type of a field of an active model is 422 (exit 1)", async () => {
    const m = await model("active");
    const p = expectProblem(await runBody(box, ["fields", "update", m.name, "amount"], { name: "amount", type: "string" }), 1, 422, "validation_failed");
    expect(p.errors).toEqual([{ path: "type", message: expect.stringContaining("number") }]);
    expect(ok(await run(box, ["fields", "get", m.name, "amount", "--json"])).type).toBe("number");
  });

  it("renaming onto another field's name is 409 name_taken (exit 1)", async () => {
    const m = await model();
    expectProblem(await runBody(box, ["fields", "update", m.name, "term"], { name: "amount", type: "integer" }), 1, 409, "name_taken");
    expect(ok(await run(box, ["fields", "list", m.name, "--json"])).data).toEqual(m.fields);
  });

  it("needs -f (usage error, exit 2)", async () => {
    const m = await model();
    expectErrorLine(await run(box, ["fields", "update", m.name, "amount"]), 2, /-f/);
  });
});

describe("fields delete", () => {
  it("removes a field from an active model; get is then 404 and the version bumps", async () => {
    const m = await model("active");
    const term = m.fields[1];
    const d = await run(box, ["fields", "delete", m.name, "term", "--json"]);
    expect(d.exitCode).toBe(0);
    expect(d.stdout).toBe("");
    expectProblem(await run(box, ["fields", "get", m.name, "term", "--json"]), 4, 404, "not_found");
    expectProblem(await run(box, ["fields", "get", term.fieldId, "--json"]), 4, 404, "not_found");
    const after = ok(await run(box, ["models", "get", m.name, "--json"]));
    expect(after.fields.map((f: { name: string }) => f.name)).toEqual(["amount"]);
    expect(after.version).toBe(m.version + 1);
  });

  it("deletes by fieldId", async () => {
    const m = await model();
    expect((await run(box, ["fields", "delete", m.fields[0].fieldId])).exitCode).toBe(0);
    expectErrorLine(await run(box, ["fields", "get", m.fields[0].fieldId]), 4, /not found/);
  });
});

describe("archived models: the field schema is frozen", () => {
  it("add, update and delete are 409 model_archived (exit 1)", async () => {
    const m = await model("archived");
    expectProblem(await run(box, ["fields", "add", m.name, "--name", "x", "--type", "number", "--json"]), 1, 409, "model_archived");
    expectProblem(await runBody(box, ["fields", "update", m.name, "amount"], { name: "amount", type: "number" }), 1, 409, "model_archived");
    expectProblem(await runBody(box, ["fields", "update", m.fields[0].fieldId], { name: "renamed", type: "number" }), 1, 409, "model_archived");
    expectProblem(await run(box, ["fields", "delete", m.name, "amount", "--json"]), 1, 409, "model_archived");
    expectErrorLine(await run(box, ["fields", "delete", m.fields[1].fieldId]), 1, /archived/);
    expect(ok(await run(box, ["models", "get", m.name, "--json"]))).toEqual(m);
  });
});

describe("field definitions", () => {
  it("invalid definitions are 422 validation_failed listing every problem", async () => {
    const name = uniq("Invalid");
    const p = expectProblem(
      await runBody(box, ["models", "create"], {
        name,
        fields: [
          { name: "kind", type: "enum" },
          { name: "amount", type: "number", validation: { min: 10, max: 1 } },
          { name: "code", type: "string", validation: { pattern: "([a-z" } },
          { name: "flag", type: "boolean", resolution: { policy: "max" } },
        ],
      }),
      1,
      422,
      "validation_failed",
    );
    expect(p.errors!.length).toBeGreaterThanOrEqual(4);
    const paths = p.errors!.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["fields.0.validation.values", "fields.1.validation", "fields.2.validation.pattern", "fields.3.resolution.policy"]));
    expectErrorLine(await run(box, ["models", "get", name]), 4, /not found/);
  });

  it("duplicate field names in one model are 422", async () => {
    const p = expectProblem(
      await runBody(box, ["models", "create"], { name: uniq("Dup"), fields: [{ name: "a", type: "number" }, { name: "a", type: "string" }] }),
      1,
      422,
      "validation_failed",
    );
    expect(p.errors).toEqual([{ path: "fields.1.name", message: 'duplicate field name "a"' }]);
  });

  it("a single invalid field added to a model is 422 too", async () => {
    const m = await model();
    const p = expectProblem(
      await runBody(box, ["fields", "add", m.name], { name: "p", type: "number", resolution: { policy: "source_priority" } }),
      1,
      422,
      "validation_failed",
    );
    expect(p.errors!.map((e) => e.path)).toContain(`fields.${m.fields.length}.resolution.sourcePriority`);
  });

  it("accepts all eight field types", async () => {
    const types = ["string", "number", "integer", "boolean", "date", "datetime", "enum", "json"];
    const fields = types.map((type) => ({ name: `f_${type}`, type, ...(type === "enum" ? { validation: { values: ["a", "b"] } } : {}) }));
    const m = await createModel(box, { name: uniq("Types"), fields });
    expect(m.fields.map((f: { type: string }) => f.type)).toEqual(types);
    expect((await setStatus(box, "models", m.name, "active")).status).toBe("active");
  });

  it("accepts all seven resolution policies", async () => {
    const policies = [
      { policy: "highest_confidence" },
      { policy: "latest" },
      { policy: "earliest" },
      { policy: "source_priority", sourcePriority: ["document", "integration", "user"] },
      { policy: "majority", minConfidence: 0.5 },
      { policy: "min" },
      { policy: "max" },
    ];
    const fields = policies.map((resolution, i) => ({ name: `p${i}`, type: "number", resolution }));
    const m = await createModel(box, { name: uniq("Policies"), fields });
    expect(m.fields.map((f: { resolution: unknown }) => f.resolution)).toEqual(policies);
    expect((await setStatus(box, "models", m.name, "active")).status).toBe("active");
  });
});
