/**
 * The conventions gh and kubectl users bring: singular and short aliases for every noun
 * (`context list`, `ctx ls`) and `ls`/`rm` for list/delete/remove; `--jq` on every command
 * that prints JSON (as gh's), refused where there is no JSON to filter; `ddsctl version`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOUN_ALIASES, VERB_ALIASES } from "../../../src/cli/core/aliases.js";
import { outputArgs } from "../../../src/cli/core/shared-args.js";
import { loadCommands } from "../../../src/cli/registry.js";
import { ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { createContext, createModel, expectProblem, messages, ok, run, uniq } from "../support.js";

const COMMANDS = await loadCommands();

let box: Sandbox;
let model: string;
const names: string[] = [];
beforeAll(async () => {
  box = sandbox();
  model = uniq("AliasLoan");
  await createModel(box, { name: model, fields: [{ name: "amount", type: "number" }] });
  for (const n of ["a", "b"]) {
    names.push(uniq(`alias-${n}`));
    await createContext(box, ["--name", names[names.length - 1], "--metadata", "batch=aliases"]);
  }
});
afterAll(() => box.cleanup());

describe("aliases", () => {
  it("every command noun has its singular", () => {
    const nouns = [...new Set(COMMANDS.filter((c) => !c.hidden && c.command.includes(" ")).map((c) => c.command.split(" ")[0]))];
    for (const noun of nouns.filter((n) => n.endsWith("s"))) expect(NOUN_ALIASES[noun], noun).toContain(noun.slice(0, -1));
  });

  it("`context list`, `ctx ls` and `contexts list` print the same", async () => {
    const args = ["--filter", "metadata.batch=aliases", "-o", "name"];
    const canonical = await run(box, ["contexts", "list", ...args]);
    expect(canonical.stdout).toBe(names.map((n) => `context/${n}\n`).join(""));
    for (const words of [["context", "list"], ["ctx", "ls"], ["contexts", "ls"]]) expect((await run(box, [...words, ...args])).stdout, words.join(" ")).toBe(canonical.stdout);
  });

  it("singulars and short verbs work for reads and deletes alike", async () => {
    expect(ok(await run(box, ["model", "get", model, "--json"])).name).toBe(model);
    expect((await run(box, ["rule", "ls", "--json"])).exitCode).toBe(0);
    const doomed = uniq("rm-me");
    await createContext(box, ["--name", doomed]);
    for (const status of ["completed", "archived"]) ok(await run(box, ["ctx", "status", doomed, status, "--json"]));
    expect((await run(box, ["ctx", "rm", doomed, "--yes"])).exitCode).toBe(0);
    expect((await run(box, ["contexts", "get", doomed])).exitCode).toBe(4);
    expect(VERB_ALIASES.delete).toEqual(["rm"]);
  });
});

describe("--jq", () => {
  it("filters a list's JSON; strings print raw, one per line", async () => {
    const r = await run(box, ["contexts", "list", "--filter", "metadata.batch=aliases", "--jq", ".data[].name"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(names.map((n) => `${n}\n`).join(""));
  });

  it("prints other values as JSON, one per line off a terminal and indented on one", async () => {
    const args = ["models", "get", model, "--jq", "{name, fields: [.fields[].name]}"];
    expect((await run(box, args)).stdout).toBe(`{"name":"${model}","fields":["amount"]}\n`);
    const tty = await ddsctl(box, args, { stdoutTTY: { columns: 100 } });
    expect(JSON.parse(tty.stdout)).toEqual({ name: model, fields: ["amount"] });
    expect(tty.stdout.split("\n").length).toBeGreaterThan(3);
  });

  it("works on writes too, and with -o json; counts and arithmetic", async () => {
    const name = uniq("jq-made");
    expect((await run(box, ["contexts", "create", "--name", name, "--jq", ".name"])).stdout).toBe(`${name}\n`);
    expect((await run(box, ["contexts", "list", "-o", "json", "--filter", "metadata.batch=aliases", "--jq", ".data | length"])).stdout).toBe("2\n");
  });

  it("is accepted by every command that prints JSON (-o), and refused elsewhere (exit 2)", async () => {
    const refused = COMMANDS.filter((c) => !c.hidden && c.args.output !== outputArgs.output).map((c) => c.command);
    expect(refused).toEqual(expect.arrayContaining(["contexts delete", "export", "serve", "completion"]));
    const p = expectProblem(await run(box, ["contexts", "delete", names[0], "--jq", "."]), 2, 400, "invalid_request");
    expect(p.detail).toBe("--jq filters JSON output, and ddsctl contexts delete prints none");
    expect(expectProblem(await run(box, ["contexts", "list", "-o", "yaml", "--jq", "."]), 2, 400, "invalid_request").detail).toBe("--jq filters JSON output: drop -o yaml");
  });

  it("a malformed expression is a usage error before anything runs; one that fails on the JSON says so", async () => {
    const name = uniq("never-made");
    const bad = await run(box, ["contexts", "create", "--name", name, "--jq", ".name["]);
    expect(bad.exitCode).toBe(2);
    expect(messages(bad)[0]).toMatch(/--jq \.name\[: could not handle token/);
    expect((await run(box, ["contexts", "get", name])).exitCode).toBe(4);
    const fails = await run(box, ["contexts", "list", "--jq", ".data + 1"]);
    expect(fails.exitCode).toBe(2);
    expect(fails.stderr).toMatch(/--jq \.data \+ 1: .*the command itself ran/);
  });
});

describe("ddsctl version", () => {
  it("prints ddsctl's, Node's and the platform's versions; --json and --jq for scripts", async () => {
    const r = await run(box, ["version"]);
    expect(r.stdout).toMatch(/^ddsctl \d+\.\d+\.\d+ \(node \d+\.\d+\.\d+, [a-z0-9]+-[a-z0-9]+\)\n$/);
    expect(ok(await run(box, ["version", "--json"]))).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), node: process.versions.node, platform: `${process.platform}-${process.arch}` });
    expect((await run(box, ["version", "--jq", ".node"])).stdout).toBe(`${process.versions.node}\n`);
  });
});
