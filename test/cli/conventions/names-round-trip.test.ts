import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { createContext, createModel, expectErrorLine, ok, run, setStatus, uniq, UUID } from "../support.js";

// What `-o name` prints reads back: every argument that takes a name or an id takes
// `<kind>/<name>` and `<kind>/<id>` too, and names several contexts share print by id.
let box: Sandbox;
let model: string;
let prefix: string;
let contextName: string;
let contextId: string;

const lines = (text: string) => text.split("\n").filter(Boolean);

beforeAll(async () => {
  box = sandbox();
  model = uniq("Borrower");
  await createModel(box, { name: model, identity: ["borrowerId"], fields: [{ name: "borrowerId", type: "string" }, { name: "income", type: "number" }] });
  await setStatus(box, "models", model, "active");
  // A sandbox is a database (or remote workspace) of its own: names as a user writes them.
  prefix = "rt";
  contextName = `${prefix}-okafor-purchase`;
  contextId = (await createContext(box, ["--name", contextName, "--type", "mortgage"])).contextId;
  await createContext(box, ["--name", `${prefix}-haddad-purchase`, "--type", "mortgage"]);
  const add = ["contributions", "add", "--context", contextName, "--model", model, "--source-id", "doc-1", "--source-type", "document"];
  expect((await run(box, [...add, "--data", "borrowerId=b1", "--data", "income=4200"])).exitCode).toBe(0);
});
afterAll(() => box.cleanup());

describe("-o name round-trips", () => {
  it("contexts list -o name | xargs -n1 ddsctl wait: every line names its context", async () => {
    const listed = await run(box, ["contexts", "list", "--filter", `name~=${prefix}-`, "--sort", "name", "-o", "name"]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(lines(listed.stdout)).toEqual([`context/${prefix}-haddad-purchase`, `context/${prefix}-okafor-purchase`]);
    for (const line of lines(listed.stdout)) {
      const waited = await run(box, ["wait", line]);
      expect(waited.exitCode, waited.stderr).toBe(0);
    }
    expect(ok(await run(box, ["contexts", "get", `context/${contextId}`, "--json"])).name).toBe(contextName);
  });

  it("records explain record/<id> <field>, and records get, take what records list -o name prints", async () => {
    const listed = await run(box, ["records", "list", "--context", `context/${contextName}`, "-o", "name"]);
    const [line] = lines(listed.stdout);
    expect(line).toMatch(/^record\/[0-9a-f-]{36}$/);
    const explained = await run(box, ["records", "explain", line, "income", "--json"]);
    expect(explained.exitCode, explained.stderr).toBe(0);
    expect(ok(await run(box, ["records", "get", line, "--json"])).recordId).toBe(line.slice("record/".length));
  });

  it("models, rules, fields and contributions take kind/name and kind/id", async () => {
    const [modelLine] = lines((await run(box, ["models", "list", "--filter", `name=${model}`, "-o", "name"])).stdout);
    expect(modelLine).toBe(`model/${model}`);
    const m = ok(await run(box, ["models", "get", modelLine, "--json"]));
    expect(ok(await run(box, ["models", "get", `model/${m.modelId}`, "--json"])).name).toBe(model);
    const [fieldLine] = lines((await run(box, ["fields", "list", model, "--filter", "name=income", "-o", "name"])).stdout);
    expect(ok(await run(box, ["fields", "get", fieldLine, "--json"])).name).toBe("income");
    const [contributionLine] = lines((await run(box, ["contributions", "list", "--context", contextName, "-o", "name"])).stdout);
    expect(contributionLine).toMatch(/^contribution\/[0-9a-f-]{36}$/);
    expect(ok(await run(box, ["contributions", "get", contributionLine, "--json"])).sourceId).toBe("doc-1");
    const rule = uniq("income-floor");
    const created = await run(box, ["rules", "create", "--name", rule, "--category", "affordability", "--severity", "low", "--expression", `{">":[{"var":"${model}.income"},0]}`, "-o", "name"]);
    expect(created.stdout).toBe(`rule/${rule}\n`);
    expect(ok(await run(box, ["rules", "get", created.stdout.trim(), "--json"])).name).toBe(rule);
    expect(ok(await run(box, ["trace", `context/${contextName}`, `rule/${rule}`, "--json"])).evaluation.outcome).toBe(true);
  });

  it("a kind/ prefix of another kind is a usage error (exit 2)", async () => {
    expectErrorLine(await run(box, ["contexts", "get", `rule/${contextName}`]), 2, /names a rule, where a context is expected/);
    expectErrorLine(await run(box, ["records", "get", `context/${contextId}`]), 2, /names a context, where a record is expected/);
  });

  it("contexts that share a name print by id, in the list and wherever else they are printed", async () => {
    const twin = `${prefix}-twin`;
    const a = (await createContext(box, ["--name", twin, "--type", "mortgage"])).contextId;
    const created = await run(box, ["contexts", "create", "--name", twin, "--type", "auto", "-o", "name"]);
    const b = created.stdout.trim().slice("context/".length);
    // The second one is printed by id at once: its name no longer tells it apart.
    expect(b).toMatch(UUID);
    const both = lines((await run(box, ["contexts", "list", "--filter", `name=${twin}`, "-o", "name"])).stdout);
    expect(both.sort()).toEqual([`context/${a}`, `context/${b}`].sort());
    // Shared with a context the output leaves out: still by id.
    expect(lines((await run(box, ["contexts", "list", "--filter", `name=${twin}`, "--filter", "type=auto", "-o", "name"])).stdout)).toEqual([`context/${b}`]);
    for (const line of both) expect((await run(box, ["contexts", "get", line])).exitCode).toBe(0);
  });
});

describe("the context list at 80 columns", () => {
  it("shows the name first and whole, and no id; -o wide adds the id whole", async () => {
    const r = await ddsctl(box, ["contexts", "list", "--filter", `name=${contextName}`], { stdoutTTY: { columns: 80 } });
    expect(r.exitCode, r.stderr).toBe(0);
    const [header, row] = lines(r.stdout);
    expect(header).toMatch(/^NAME\s+TYPE\s+STATUS\s+FRESHNESS\s+UPDATED$/);
    expect(row.startsWith(`${contextName} `)).toBe(true);
    expect(r.stdout).not.toContain("…");
    for (const l of lines(r.stdout)) expect(l.length).toBeLessThanOrEqual(80);
    const wide = await ddsctl(box, ["contexts", "list", "--filter", `name=${contextName}`, "-o", "wide"], { stdoutTTY: { columns: 80 } });
    expect(lines(wide.stdout)[0]).toContain("CONTEXT ID");
    expect(lines(wide.stdout)[1]).toContain(contextId);
  });
});
