import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../helpers/cli.js";
import { createModel, expectErrorLine, expectProblem, ISO, ok, run, runBody, setStatus, uniq, UUID } from "./support.js";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

const loan = (name: string) => ({
  name,
  description: "a mortgage loan",
  fields: [
    { name: "amount", type: "number", required: true, validation: { min: 0 } },
    { name: "purpose", type: "enum", validation: { values: ["purchase", "refinance"] } },
  ],
});

describe("models create, get, list", () => {
  it("creates a draft with server ids, fields with fieldIds and version 1", async () => {
    const name = uniq("Loan");
    const m = await createModel(box, loan(name));
    expect(Object.keys(m).sort()).toEqual(["createdAt", "description", "fields", "identity", "modelId", "name", "relationships", "status", "updatedAt", "version"]);
    expect(m).toMatchObject({ name, description: "a mortgage loan", status: "draft", version: 1, identity: [], relationships: [] });
    expect(m.modelId).toMatch(UUID);
    expect(m.createdAt).toMatch(ISO);
    expect(m.fields).toHaveLength(2);
    for (const f of m.fields) {
      expect(f.fieldId).toMatch(UUID);
      expect(f.modelId).toBe(m.modelId);
      expect(f.resolution).toEqual({ policy: "highest_confidence" });
    }
    expect(new Set(m.fields.map((f: { fieldId: string }) => f.fieldId)).size).toBe(2);
    expect(m.fields[0]).toMatchObject({ name: "amount", type: "number", required: true, validation: { min: 0 }, computed: null });
  });

  it("gets a model by name and by id with identical JSON", async () => {
    const name = uniq("Loan");
    const created = await createModel(box, loan(name));
    const byName = ok(await run(box, ["models", "get", name, "--json"]));
    const byId = ok(await run(box, ["models", "get", created.modelId, "--json"]));
    expect(byName).toEqual(created);
    expect(byId).toEqual(created);
  });

  it("prints the target banner on stderr and a readable view without --json", async () => {
    const name = uniq("Loan");
    await createModel(box, loan(name));
    const r = await run(box, ["models", "get", name]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr.split("\n")[0]).toBe(box.banner);
    expect(r.stdout).toMatch(new RegExp(`^name:\\s+${name}$`, "m"));
    expect(r.stdout).toMatch(/^amount\tnumber\tyes\t/m);
  });

  it("lists models in the {models, nextCursor, hasNextPage} envelope", async () => {
    const name = uniq("Listed");
    const created = await createModel(box, loan(name));
    const page = ok(await run(box, ["models", "list", "--filter", `name=${name}`, "--json"]));
    expect(Object.keys(page).sort()).toEqual(["hasNextPage", "models", "nextCursor"]);
    expect(page).toEqual({ models: [created], nextCursor: null, hasNextPage: false });
    await createModel(box, loan(uniq("Listed")));
    const first = ok(await run(box, ["models", "list", "--limit", "1", "--json"]));
    expect(first.models).toHaveLength(1);
    expect(first.hasNextPage).toBe(true);
    expect(typeof first.nextCursor).toBe("string");
  });

  it("answers 409 name_taken for a second model of the same name (exit 1, problem on stderr)", async () => {
    const name = uniq("Taken");
    await createModel(box, loan(name));
    const p = expectProblem(await runBody(box, ["models", "create"], loan(name)), 1, 409, "name_taken");
    expect(p.detail).toContain(name);
    expectErrorLine(await run(box, ["models", "create", "--name", name]), 1, /already exists/);
  });
});

describe("models update (PATCH)", () => {
  it("changes only the given properties", async () => {
    const name = uniq("Patch");
    const m = await createModel(box, loan(name));
    const u = ok(await run(box, ["models", "update", name, "--description", "changed", "--json"]));
    expect(u).toEqual({ ...m, description: "changed", updatedAt: u.updatedAt });
    const renamed = uniq("Renamed");
    const r = ok(await runBody(box, ["models", "update", m.modelId], { name: renamed }));
    expect(r).toMatchObject({ modelId: m.modelId, name: renamed, description: "changed", version: 2, fields: m.fields });
    expectErrorLine(await run(box, ["models", "get", name]), 4, /not found/);
  });

  it("rejects status in the body with 400 (exit 1)", async () => {
    const name = uniq("Patch");
    await createModel(box, loan(name));
    const p = expectProblem(await runBody(box, ["models", "update", name], { status: "active" }), 1, 400, "invalid_request");
    expect(p.detail).toMatch(/status is not changed by PATCH/);
    expectErrorLine(await run(box, ["models", "update", name, "-f", "-"], '{"status":"active"}'), 1, /status/);
    expect(ok(await run(box, ["models", "get", name, "--json"])).status).toBe("draft");
  });

  it("answers name_taken when renaming onto an existing model", async () => {
    const a = uniq("A");
    const b = uniq("B");
    await createModel(box, loan(a));
    await createModel(box, loan(b));
    expectProblem(await run(box, ["models", "update", a, "--name", b, "--json"]), 1, 409, "name_taken");
  });

  it("keeps relationships that name a renamed model working", async () => {
    const target = uniq("Target");
    const source = uniq("Source");
    await createModel(box, loan(target));
    await createModel(box, {
      name: source,
      fields: [{ name: "total", type: "number", computed: { expression: { var: "loan.amount" } } }],
      relationships: [{ name: "loan", target, cardinality: "one" }],
    });
    await setStatus(box, "models", target, "active");
    await setStatus(box, "models", source, "active");
    const renamed = uniq("Target");
    ok(await run(box, ["models", "update", target, "--name", renamed, "--json"]));
    expect(ok(await run(box, ["models", "get", source, "--json"])).relationships[0].target).toBe(renamed);
    // A later change to the source model recompiles it against the renamed target.
    const f = ok(await run(box, ["fields", "add", source, "--name", "extra", "--type", "number", "--json"]));
    expect(f.name).toBe("extra");
  });

  it("renames an active model whose relationship targets itself by name", async () => {
    const name = uniq("Person");
    await createModel(box, {
      name,
      fields: [{ name: "age", type: "number" }],
      relationships: [{ name: "parent", target: name, cardinality: "one" }],
    });
    await setStatus(box, "models", name, "active");
    const renamed = uniq("Person");
    const m = ok(await run(box, ["models", "update", name, "--name", renamed, "--json"]));
    expect(m).toMatchObject({ name: renamed, status: "active", relationships: [{ name: "parent", target: renamed, cardinality: "one" }] });
  });
});

describe("model lifecycle", () => {
  const draft = async () => (await createModel(box, loan(uniq("Life")))).name as string;
  const active = async () => {
    const n = await draft();
    await setStatus(box, "models", n, "active");
    return n;
  };
  const archived = async () => {
    const n = await active();
    await setStatus(box, "models", n, "archived");
    return n;
  };

  it("draft → active → archived succeed and return the model", async () => {
    const n = await draft();
    const a = await setStatus(box, "models", n, "active");
    expect(a).toMatchObject({ name: n, status: "active" });
    const z = await setStatus(box, "models", n, "archived");
    expect(z).toMatchObject({ name: n, status: "archived" });
    expect(ok(await run(box, ["models", "get", n, "--json"])).status).toBe("archived");
  });

  const invalid: [string, () => Promise<string>, string][] = [
    ["archived → draft", archived, "draft"],
    ["draft → archived", draft, "archived"],
    ["active → draft", active, "draft"],
    ["active → active", active, "active"],
    ["archived → active", archived, "active"],
    ["draft → draft", draft, "draft"],
    ["archived → archived", archived, "archived"],
  ];
  for (const [label, make, to] of invalid) {
    it(`${label} is 422 invalid_transition (exit 1) and changes nothing`, async () => {
      const n = await make();
      const before = ok(await run(box, ["models", "get", n, "--json"]));
      expectProblem(await run(box, ["models", "status", n, to, "--json"]), 1, 422, "invalid_transition");
      expect(ok(await run(box, ["models", "get", n, "--json"]))).toEqual(before);
    });
  }

  it("rejects an unknown spelling (published) with 400, exit 1", async () => {
    const n = await draft();
    const p = expectProblem(await run(box, ["models", "status", n, "published", "--json"]), 1, 400, "invalid_request");
    expect(p.detail).toContain("published");
  });

  it("accepts status spellings case-insensitively (ACTIVE)", async () => {
    const n = await draft();
    expect((await setStatus(box, "models", n, "ACTIVE")).status).toBe("active");
  });
});

describe("model activation compiles the definition", () => {
  it("lists every problem: unknown field, missing relationship target, computed cycle", async () => {
    const name = uniq("Broken");
    await createModel(box, {
      name,
      fields: [
        { name: "amount", type: "number" },
        { name: "bad", type: "number", computed: { expression: { "+": [{ var: "nosuch" }, 1] } } },
        { name: "a", type: "number", computed: { expression: { var: "b" } } },
        { name: "b", type: "number", computed: { expression: { var: "a" } } },
      ],
      relationships: [{ name: "owner", target: uniq("Ghost"), cardinality: "one" }],
    });
    const p = expectProblem(await run(box, ["models", "status", name, "active", "--json"]), 1, 422, "compile_failed");
    const text = p.errors!.map((e) => `${e.path}: ${e.message}`);
    expect(p.errors).toHaveLength(3);
    expect(text.some((t) => t.startsWith("fields.1.computed.expression") && t.includes("nosuch"))).toBe(true);
    expect(text.some((t) => t.startsWith("relationships.0.target") && t.includes("Ghost"))).toBe(true);
    expect(text.some((t) => /cycle/.test(t) && t.includes(`${name}.a`) && t.includes(`${name}.b`))).toBe(true);
    expect(ok(await run(box, ["models", "get", name, "--json"])).status).toBe("draft");
  });

  it("finds a computed cycle across models through relationships", async () => {
    const a = uniq("CycA");
    const b = uniq("CycB");
    await createModel(box, {
      name: a,
      fields: [{ name: "x", type: "number", computed: { expression: { sum: [{ var: "tob.y" }] } } }],
      relationships: [{ name: "tob", target: b, cardinality: "many" }],
    });
    await createModel(box, {
      name: b,
      fields: [{ name: "y", type: "number", computed: { expression: { sum: [{ var: "toa.x" }] } } }],
      relationships: [{ name: "toa", target: a, cardinality: "many" }],
    });
    const p = expectProblem(await run(box, ["models", "status", a, "active", "--json"]), 1, 422, "compile_failed");
    expect(p.errors).toEqual([{ path: "fields", message: `computed fields form a cycle: ${a}.x → ${b}.y → ${a}.x` }]);
    expectErrorLine(await run(box, ["models", "status", a, "active"]), 1, /cannot be activated: computed fields form a cycle/);
  });
});

describe("models delete", () => {
  it("refuses a draft or active model with 409 model_not_archived", async () => {
    const n = (await createModel(box, loan(uniq("Del")))).name as string;
    expectProblem(await run(box, ["models", "delete", n, "--json"]), 1, 409, "model_not_archived");
    await setStatus(box, "models", n, "active");
    expectErrorLine(await run(box, ["models", "delete", n]), 1, new RegExp(`move it to archived before deleting it \\(run: ddsctl models status ${n} archived\\)$`));
    expect(ok(await run(box, ["models", "get", n, "--json"])).status).toBe("active");
  });

  it("refuses an archived model that still has records with 409 model_has_records, until they are deleted", async () => {
    const m = await createModel(box, loan(uniq("Held")));
    await setStatus(box, "models", m.name, "active");
    const c = ok(await run(box, ["contexts", "create", "--json"]));
    const body = { contextId: c.contextId, modelId: m.modelId, sourceId: "doc-1", sourceType: "document", data: { amount: 1000 } };
    const contribution = ok(await runBody(box, ["contributions", "add"], body));
    await setStatus(box, "models", m.name, "archived");
    const p = expectProblem(await run(box, ["models", "delete", m.name, "--json"]), 1, 409, "model_has_records");
    expect(p.detail).toMatch(/1 active record/);
    expect((await run(box, ["records", "delete", contribution.recordId, "--json"])).exitCode).toBe(0);
    expect((await run(box, ["models", "delete", m.name, "--json"])).exitCode).toBe(0);
    expectErrorLine(await run(box, ["models", "get", m.modelId]), 4, /not found/);
  });

  it("deletes an archived model: exit 0, no stdout, then get is 404 (exit 4) and the name is free", async () => {
    const m = await createModel(box, loan(uniq("Del")));
    await setStatus(box, "models", m.name, "active");
    await setStatus(box, "models", m.name, "archived");
    const d = await run(box, ["models", "delete", m.modelId, "--json"]);
    expect(d.exitCode).toBe(0);
    expect(d.stdout).toBe("");
    expectProblem(await run(box, ["models", "get", m.modelId, "--json"]), 4, 404, "not_found");
    expectErrorLine(await run(box, ["models", "get", m.name]), 4, /not found/);
    const list = ok(await run(box, ["models", "list", "--filter", `name=${m.name}`, "--json"]));
    expect(list.models).toEqual([]);
    const again = await createModel(box, loan(m.name));
    expect(again.modelId).not.toBe(m.modelId);
  });
});

describe("scripted lifecycle from the issue", () => {
  it("create from stdin, activate, then a move back to draft fails with the 422 problem", async () => {
    const name = uniq("Loan");
    const body = `{"name":"${name}","fields":[{"name":"amount","type":"number"}]}`;
    const created = ok(await run(box, ["models", "create", "-f", "-", "--json"], body));
    expect(created).toMatchObject({ name, status: "draft", version: 1, fields: [{ name: "amount", type: "number" }] });
    const active = ok(await run(box, ["models", "status", name, "active", "--json"]));
    expect(active).toMatchObject({ modelId: created.modelId, status: "active" });
    const r = await run(box, ["models", "status", name, "draft"]);
    expectErrorLine(r, 1, /^error: cannot move model from active to draft: models never return to draft$/);
    const j = expectProblem(await run(box, ["models", "status", name, "draft", "--json"]), 1, 422, "invalid_transition");
    expect(j).toEqual({
      type: expect.any(String),
      title: "Unprocessable Content",
      status: 422,
      detail: "cannot move model from active to draft: models never return to draft",
      code: "invalid_transition",
    });
  });
});
