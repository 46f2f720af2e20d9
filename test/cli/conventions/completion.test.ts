import { execa } from "execa";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { createContext, createModel, runBody, uniq } from "../support.js";

const ROOT = resolve(import.meta.dirname, "../../..");
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

describe("ddsctl __complete: aliases and --filter", () => {
  it("walks aliases as their commands (ctx ls, rule get)", async () => {
    expect(await complete("ctx", "ls", "--fi")).toEqual(["--filter"]);
    expect(await complete("ctx", "g")).toEqual(["get"]);
    expect(await complete("rule", "get", "")).toContain(rule);
  });

  it("offers a list's own filter fields, then the values of a field with a fixed set", async () => {
    const fields = await complete("contributions", "list", "--filter", "");
    expect(fields).toEqual(expect.arrayContaining(["status=", "sourceType=", "receivedAt="]));
    expect(fields).not.toContain("createdAt=");
    expect(await complete("contexts", "list", "--filter", "me")).toEqual(["metadata."]);
    expect(await complete("contexts", "list", "--filter", "status=")).toEqual(["status=active", "status=completed", "status=archived"]);
    expect(await complete("contributions", "ls", "--filter", "status=s")).toEqual(["status=superseded"]);
    expect(await complete("rules", "list", "--filter", "severity[in]=high,c")).toEqual(["severity[in]=high,critical"]);
    expect(await complete("evaluations", "list", "--filter", "outcome!=")).toEqual(["outcome!=true", "outcome!=false"]);
  });
});

/** Runs a script in `shell` with the sandbox's environment; `bin` puts nothing on the PATH. */
async function inShell(shell: string, args: string[], cwd = box.dir): Promise<string> {
  const r = await execa(shell, args, { cwd, env: { ...box.env, HOME: box.dir }, reject: false });
  expect(r.exitCode, `${shell}: ${r.stderr}`).toBe(0);
  return r.stdout;
}
const installed = (shell: string) => spawnSync("sh", ["-c", `command -v ${shell}`]).status === 0;

/** A bash probe: COMP_* as bash sets them for `line` (split at = as bash does), then the bound function. */
function bashProbe(script: string, command: string, line: string): string {
  const words = line.replace(/=/g, " = ").split(/\s+/).filter(Boolean);
  if (line.endsWith(" ")) words.push("");
  const quoted = words.map((w) => `'${w}'`).join(" ");
  return `${script}
COMP_LINE='${line}'; COMP_POINT=\${#COMP_LINE}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}
fn=$(complete -p ${command} | sed -E 's/.* -F ([^ ]+) .*/\\1/'); $fn; printf '%s\\n' "\${COMPREPLY[@]}"`;
}

describe("ddsctl completion", () => {
  it("prints a script for bash, zsh, fish and PowerShell; anything else is a usage error", async () => {
    for (const shell of ["bash", "zsh", "fish", "powershell"]) {
      const r = await ddsctl(box, ["completion", shell]);
      expect(r.exitCode).toBe(0);
      // Each runs this ddsctl by its path, so nothing needs to be on the PATH.
      expect(r.stdout).toContain(`${BIN}' __complete`);
    }
    expect((await ddsctl(box, ["completion", "tcsh"])).exitCode).toBe(2);
  });

  it("bash: completes `ddsctl` and `npx ddsctl`, names and --filter values, with nothing on the PATH", async () => {
    const script = (await ddsctl(box, ["completion", "bash"])).stdout;
    const run = (command: string, line: string) => inShell("bash", ["-c", bashProbe(script, command, line)]).then((o) => o.split("\n").filter(Boolean));
    expect(await run("ddsctl", `ddsctl models get ${model.slice(0, 5)}`)).toContain(model);
    expect(await run("npx", `npx ddsctl models get ${model.slice(0, 5)}`)).toContain(model);
    expect(await run("npx", "npx ddsctl ctx l")).toEqual(["list"]);
    // bash breaks "status=ac" at "=": the reply replaces only its last part.
    expect(await run("ddsctl", "ddsctl contexts list --filter status=ac")).toEqual(["active"]);
    expect(await run("ddsctl", "ddsctl contributions list --filter status=")).toEqual(["=accepted", "=superseded"]);
    // Another npx command is left to bash's default completion.
    expect(await run("npx", "npx prettier --wr")).toEqual([]);
  });

  it("bash: the README's install line, `source <(npx ddsctl completion bash)`, works in a project folder", async () => {
    const dir = join(box.dir, "project");
    mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
    symlinkSync(ROOT, join(dir, "node_modules", "ddsctl"));
    symlinkSync(join("..", "ddsctl", "bin", "ddsctl"), join(dir, "node_modules", ".bin", "ddsctl"));
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const line = /`(source <\(npx ddsctl completion bash\))`/.exec(readme)?.[1];
    expect(line).toBe("source <(npx ddsctl completion bash)");
    const out = await inShell("bash", ["-c", bashProbe(line!, "npx", "npx ddsctl mo")], dir);
    expect(out.split("\n")).toEqual(["models"]);
  });

  it(installed("zsh") ? "zsh: completes `ddsctl` and `npx ddsctl` through a real zsh (compadd recorded)" : "zsh (not installed here): the script binds ddsctl and npx, calls __complete with the words to the cursor, adds filter fields without a space", async () => {
    const script = (await ddsctl(box, ["completion", "zsh"])).stdout;
    expect(script).toMatch(/^#compdef ddsctl npx$/m);
    expect(script).toContain("compdef _ddsctl ddsctl npx");
    expect(script).toContain(`__complete "\${(@)words[first,CURRENT]}"`);
    expect(script).toContain("compadd -S '' --");
    if (!installed("zsh")) return;
    // compsys is not running in a script: compadd and _files print what they were given.
    const probe = (line: string) => `compadd() { [[ $1 == -S ]] && print -n 'nospace:'; print -r -- \${@[-1]}; }; _files() { print FILES; }; _default() { print DEFAULT; }; compdef() { :; }
${script}
words=(${line}); CURRENT=\${#words}; _ddsctl`;
    expect((await inShell("zsh", ["-c", probe(`ddsctl models get ${model.slice(0, 5)}`)])).split("\n")).toContain(model);
    expect((await inShell("zsh", ["-c", probe(`npx ddsctl models get ${model.slice(0, 5)}`)])).split("\n")).toContain(model);
    expect(await inShell("zsh", ["-c", probe("ddsctl contexts list --filter sta")])).toBe("nospace:status=");
    expect(await inShell("zsh", ["-c", probe("npx prettier --wr")])).toBe("DEFAULT");
  });

  it(installed("fish") ? "fish: completes `ddsctl` and `npx ddsctl` through a real fish (complete -C)" : "fish (not installed here): the script binds ddsctl, and npx when followed by ddsctl, and calls __complete", async () => {
    const script = (await ddsctl(box, ["completion", "fish"])).stdout;
    expect(script).toContain("complete -c ddsctl -a '(__ddsctl_complete)'");
    expect(script).toContain("complete -c npx -n __ddsctl_after_npx -a '(__ddsctl_complete)'");
    if (!installed("fish")) return;
    writeFileSync(join(box.dir, "ddsctl.fish"), script);
    const ask = async (line: string) => (await inShell("fish", ["-c", `source ${join(box.dir, "ddsctl.fish")}; complete -C'${line}'`])).split("\n").map((l) => l.split("\t")[0]);
    expect(await ask(`ddsctl models get ${model.slice(0, 5)}`)).toContain(model);
    expect(await ask(`npx ddsctl models get ${model.slice(0, 5)}`)).toContain(model);
    expect(await ask("ddsctl contexts list --filter status=ar")).toContain("status=archived");
  });

  it(installed("pwsh") ? "PowerShell: completes through a real pwsh (TabExpansion2)" : "PowerShell (pwsh not installed here): the script registers a native completer for ddsctl and npx that calls __complete", async () => {
    const script = (await ddsctl(box, ["completion", "powershell"])).stdout;
    expect(script).toContain("Register-ArgumentCompleter -Native -CommandName ddsctl, npx -ScriptBlock {");
    expect(script).toContain("__complete @words");
    expect(script).toContain("[System.Management.Automation.CompletionResult]::new(");
    if (!installed("pwsh")) return;
    writeFileSync(join(box.dir, "ddsctl.ps1"), script);
    const line = `ddsctl models get ${model.slice(0, 5)}`;
    const out = await inShell("pwsh", ["-NoProfile", "-Command", `. '${join(box.dir, "ddsctl.ps1")}'; (TabExpansion2 -inputScript '${line}' -cursorColumn ${line.length}).CompletionMatches.CompletionText`]);
    expect(out.split("\n")).toContain(model);
  });
});
