import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFormatArg } from "../../../src/cli/core/shared-args.js";
import { loadCommands } from "../../../src/cli/registry.js";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { createContext, expectProblem, messages, run, uniq } from "../support.js";

const COMMANDS = await loadCommands();

// -o is the output format on every command; a format a command cannot print, and any
// other mistake on the command line, is a usage error (exit 2), a problem object under --json.
let box: Sandbox;
let name: string;

beforeAll(async () => {
  box = sandbox();
  name = uniq("fmt-case");
  await createContext(box, ["--name", name]);
});
afterAll(() => box.cleanup());

describe("parse errors", () => {
  it("contexts list --bogus --json prints a problem object on stderr and exits 2", async () => {
    const r = await run(box, ["contexts", "list", "--bogus", "--json"]);
    const p = expectProblem(r, 2, 400, "invalid_request");
    expect(p.detail).toBe("unknown option '--bogus'");
    expect(r.stderr).not.toMatch(/add --help/);
    // The same with -o json; and without JSON, commander's lines as before.
    expectProblem(await run(box, ["contexts", "list", "--bogus", "-o", "json"]), 2, 400, "invalid_request");
    const plain = await run(box, ["contexts", "list", "--bogus"]);
    expect(plain.exitCode).toBe(2);
    expect(plain.stderr).toMatch(/^error: unknown option '--bogus'$/m);
  });
});

describe("formats a command cannot print", () => {
  it("pipeline status -o name and rules test -o name are usage errors that say why", async () => {
    for (const args of [["pipeline", "status", "-o", "name"], ["rules", "test", "cases.yaml", "-o", "name"]]) {
      const r = await run(box, args);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/Allowed choices are json, yaml, wide\. This command prints a report, not resources/);
    }
  });

  it("every command that prints a report refuses -o name before it runs", async () => {
    const reports = COMMANDS.filter((c) => isFormatArg(c.args.output) && !(c.args.output as { choices?: readonly string[] }).choices?.includes("name"));
    expect(reports.map((c) => c.command)).toEqual(expect.arrayContaining(["pipeline status", "rules test", "rules eval", "trace", "wait", "import", "demo", "apply"]));
    for (const c of reports) {
      const positionals = Object.values(c.args).filter((a) => a.positional && a.type !== "boolean" && (a as { required?: boolean }).required).length;
      const r = await run(box, [...c.command.split(" "), ...Array.from({ length: positionals }, () => "x"), "-o", "name"]);
      expect(r.exitCode, `${c.command}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe("");
    }
  });
});

describe("export", () => {
  it("takes its file by --output-file (-O); -o is the format: json, never a file name", async () => {
    const file = join(box.dir, "case.ndjson");
    const r = await run(box, ["export", name, "-O", file, "-o", "json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ file, contexts: 1 });
    expect(readFileSync(file, "utf8")).toContain(`"kind":"Context"`);

    const yaml = await run(box, ["export", name, "-o", "yaml"]);
    expect(yaml.exitCode).toBe(2);
    expect(yaml.stderr).toMatch(/export writes NDJSON: yaml is not a format it prints/);
    expect(existsSync(join(box.dir, "yaml"))).toBe(false);

    // The old spelling, -o <file>, says what to write instead and writes nothing.
    const old = await run(box, ["export", name, "-o", "old.ndjson"]);
    expect(old.exitCode).toBe(2);
    expect(old.stderr).toMatch(/write the export to a file with --output-file old\.ndjson \(or -O old\.ndjson\)/);
    expect(existsSync(join(box.dir, "old.ndjson"))).toBe(false);
    expect(messages(await run(box, ["export", name, "--output-file", join(box.dir, "x.ndjson")]))).toEqual([expect.stringMatching(/^exported .* to /)]);
  });
});
