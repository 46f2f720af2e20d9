import { execa } from "execa";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { createContext, createModel, runBody, uniq } from "../support.js";

let box: Sandbox;
let model: string;
let context: string;
let rule: string;

beforeAll(async () => {
  box = sandbox();
  model = uniq("Mortgage");
  await createModel(box, { name: model, fields: [{ name: "amount", type: "number" }] });
  context = uniq("brennan-joint");
  await createContext(box, ["--name", context]);
  rule = uniq("min-amount");
  const r = await runBody(box, ["rules", "create", "--no-wait"], { name: rule, category: "eligibility", severity: "low", expression: { ">=": [{ var: `${model}.amount` }, 1] } });
  expect(r.exitCode, r.stderr).toBe(0);
});
afterAll(() => box.cleanup());

/** The candidates `ddsctl __complete <words>` offers. */
async function complete(...words: string[]): Promise<string[]> {
  const r = await ddsctl(box, ["__complete", ...words]);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.split("\n").filter(Boolean);
}

describe("ddsctl __complete", () => {
  it("offers command groups, then their verbs (hidden helpers never)", async () => {
    const top = await complete("");
    expect(top).toEqual(expect.arrayContaining(["models", "contexts", "rules", "import", "completion"]));
    expect(top).not.toContain("__complete");
    expect(await complete("mo")).toEqual(["models"]);
    expect(await complete("models", "")).toEqual(expect.arrayContaining(["create", "list", "get", "delete"]));
  });

  it("offers a command's flags and the global ones", async () => {
    expect(await complete("contexts", "list", "--fi")).toEqual(["--filter"]);
    expect(await complete("records", "list", "--")).toEqual(expect.arrayContaining(["--context", "--model", "--output", "--json", "--local"]));
  });

  it("offers the names of models, contexts and rules from the current target", async () => {
    expect(await complete("models", "get", "")).toContain(model);
    expect(await complete("records", "list", "--context", context.slice(0, 6))).toContain(context);
    expect(await complete("records", "list", "--model", "")).toContain(model);
    expect(await complete("trace", context, "")).toContain(rule);
    expect(await complete("rules", "get", "")).toContain(rule);
  });

  it("offers a flag's or argument's fixed values", async () => {
    expect(await complete("models", "list", "-o", "")).toEqual(["json", "yaml", "wide", "name"]);
    expect(await complete("import", "")).toEqual(["contributions", "records-update", "records-delete"]);
  });

  it("offers nothing (and creates nothing) when the target's database does not exist", async () => {
    expect(await complete("--local", join(box.dir, "none", "x.db"), "models", "get", "")).toEqual([]);
  });
});

describe("ddsctl completion", () => {
  it("prints a script for bash, zsh and fish; anything else is a usage error", async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const r = await ddsctl(box, ["completion", shell]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain("ddsctl __complete");
    }
    expect((await ddsctl(box, ["completion", "tcsh"])).exitCode).toBe(2);
  });

  it("the bash script completes model names through the real binary", async () => {
    const bin = join(box.dir, "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(BIN, join(bin, "ddsctl"));
    const script = (await ddsctl(box, ["completion", "bash"])).stdout;
    const probe = `${script}\nCOMP_WORDS=(ddsctl models get ${model.slice(0, 5)}); COMP_CWORD=3; _ddsctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = await execa("bash", ["-c", probe], { cwd: box.dir, env: { ...box.env, PATH: `${bin}:${process.env.PATH}` }, reject: false });
    expect(r.stdout.split("\n")).toContain(model);
  });
});
