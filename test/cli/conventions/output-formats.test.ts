import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayWidth } from "../../../src/cli/output/table-layout.js";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { createContext, createModel, messages, ok, run, uniq } from "../support.js";

let box: Sandbox;
let model: string;
let ctxName: string;

beforeAll(async () => {
  box = sandbox();
  model = uniq("Loan");
  await createModel(box, { name: model, fields: [{ name: "amount", type: "number" }] });
  ctxName = uniq("fmt-case");
  await createContext(box, ["--name", ctxName, "--metadata", `note=${"long ".repeat(30)}`]);
});
afterAll(() => box.cleanup());

describe("-o json|yaml|name", () => {
  it("-o json prints exactly what --json prints (the REST body)", async () => {
    const a = await run(box, ["models", "get", model, "-o", "json"]);
    const b = await run(box, ["models", "get", model, "--json"]);
    expect(a.exitCode).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });

  it("-o yaml prints the same body as YAML", async () => {
    const json = ok(await run(box, ["contexts", "list", "--filter", `name=${ctxName}`, "--json"]));
    const y = await run(box, ["contexts", "list", "--filter", `name=${ctxName}`, "-o", "yaml"]);
    expect(y.exitCode, y.stderr).toBe(0);
    expect(parse(y.stdout)).toEqual(json);
  });

  it("-o name prints kind/name lines (kind/id where names do not identify)", async () => {
    const models = await run(box, ["models", "list", "-o", "name"]);
    expect(models.stdout.split("\n")).toContain(`model/${model}`);
    const contexts = await run(box, ["contexts", "list", "--filter", `name=${ctxName}`, "-o", "name"]);
    expect(contexts.stdout).toBe(`context/${ctxName}\n`);
    const fields = await run(box, ["fields", "list", model, "-o", "name"]);
    expect(fields.stdout).toMatch(/^field\/[0-9a-f-]{36}\n$/);
  });

  it("an unknown format is a usage error naming the formats", async () => {
    const r = await run(box, ["models", "list", "-o", "xml"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/json, yaml, wide, name/);
  });
});

describe("tables", () => {
  it("an empty list prints nothing on stdout and one line on stderr", async () => {
    const r = await run(box, ["rules", "list", "--filter", "name=no-such-rule"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("");
    expect(messages(r)).toEqual(["no rules found"]);
  });

  it("plain (non-TTY) output is TSV: tabs, newlines and backslashes inside values are escaped", async () => {
    const name = `${uniq("tab")}\tand\nnew\\line`;
    await createContext(box, ["--name", name]);
    const r = await run(box, ["contexts", "list", "--filter", `name=${name}`]);
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines).toHaveLength(2);
    const header = lines[0].split("\t");
    const cells = lines[1].split("\t");
    expect(cells).toHaveLength(header.length);
    expect(cells[header.indexOf("NAME")]).toBe(name.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n"));
  });

  it("on a terminal, tables are borderless and fit its width; -o wide shows every cell whole", async () => {
    const r = await ddsctl(box, ["contexts", "list", "--filter", `name=${ctxName}`], { stdoutTTY: { columns: 50 } });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines.length).toBe(2);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(50);
    expect(r.stdout).not.toMatch(/[│┌─┼]/);
    expect(r.stdout).toContain("…");
    const wide = await ddsctl(box, ["contexts", "list", "--filter", `name=${ctxName}`, "-o", "wide"], { stdoutTTY: { columns: 50 } });
    expect(wide.stdout).not.toContain("…");
    expect(wide.stdout).toContain("long long long");
  });

  it("on a terminal, columns after a name in CJK or with an emoji stay aligned (display width, not length)", async () => {
    const batch = uniq("wide");
    for (const name of [`王小明-${batch}`, `🏠-${batch}`, `plain-${batch}`]) await createContext(box, ["--name", name, "--metadata", `batch=${batch}`]);
    const r = await ddsctl(box, ["contexts", "list", "--filter", `metadata.batch=${batch}`], { stdoutTTY: { columns: 200 } });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines).toHaveLength(4);
    // The column STATUS starts at, in terminal columns, is the same on every line.
    const column = (line: string, word: string) => displayWidth(line.slice(0, line.indexOf(word)));
    const at = column(lines[0], "STATUS");
    for (const l of lines.slice(1)) expect(column(l, "active"), l).toBe(at);
  });
});
