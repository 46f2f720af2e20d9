import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOPICS } from "../../src/cli/core/program.js";
import { COMMAND_INDEX, loadCommands } from "../../src/cli/registry.js";
import { ddsctlBinary, sandbox, type Sandbox } from "../helpers/cli.js";
import { run } from "./support.js";

const COMMANDS = await loadCommands();

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

/** The first word of every registered command: the command groups and top-level commands. */
const VISIBLE = COMMANDS.filter((c) => !c.hidden);
const words = (c: (typeof COMMANDS)[number]) => c.command.split(" ");
const NOUNS = [...new Set(VISIBLE.map((c) => words(c)[0]))];

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

describe("--version", () => {
  it("the bin shim prints the package.json version and nothing else", async () => {
    for (const flag of ["--version", "-V"]) {
      const r = await ddsctlBinary(box, [flag]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(`${pkg.version}\n`);
      expect(r.stderr).toBe("");
    }
  });

  it("answers the same through the full CLI (with another global flag)", async () => {
    const r = await run(box, ["--quiet", "--version"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });
});

describe("--help", () => {
  it("the top level lists every command group and has examples", async () => {
    const r = await run(box, ["--help"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Examples:");
    for (const noun of NOUNS) expect(r.stdout).toMatch(new RegExp(`^  ${noun}\\b`, "m"));
  });

  it("the top level groups the commands by topic, as gh does, every one under its heading", async () => {
    const r = await run(box, ["--help"]);
    const sections = r.stdout.split(/\n\n/);
    const headings = [...new Set(Object.values(TOPICS))];
    expect(headings.length).toBeGreaterThanOrEqual(4);
    for (const noun of [...NOUNS, "help"]) {
      const heading = TOPICS[noun] ?? TOPICS.completion;
      const section = sections.find((s) => s.startsWith(heading));
      expect(section, heading).toBeDefined();
      expect(section, `${noun} under ${heading}`).toMatch(new RegExp(`^  ${noun}\\b`, "m"));
    }
    // Every visible command word has its topic: none falls back to a generic "Commands:".
    expect(r.stdout).not.toContain("\nCommands:\n");
  });

  it("`ddsctl help` exits 0", async () => {
    const r = await run(box, ["help"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Usage: ddsctl");
  });

  it("the registry names each command as its file does (it loads the file only when needed)", () => {
    expect(COMMANDS.map((c) => c.command)).toEqual(COMMAND_INDEX.map((e) => e.command));
  });

  it("every registered command is declared with a description and at least one example", () => {
    expect(COMMANDS.length).toBeGreaterThan(0);
    const paths = COMMANDS.map((c) => c.command);
    expect(new Set(paths).size).toBe(paths.length);
    for (const c of COMMANDS) {
      expect(c.description.length, paths.join(",")).toBeGreaterThan(0);
      expect(c.examples.length, c.command).toBeGreaterThan(0);
      for (const e of c.examples) expect(e).toMatch(/ddsctl /);
    }
  });

  // The meta-test: every command the registry holds answers --help on stdout with its
  // examples, exit 0, without touching a database.
  for (const spec of VISIBLE) {
    const path = spec.command;
    it(`ddsctl ${path} --help`, async () => {
      const r = await run(box, [...words(spec), "--help"]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain(`Usage: ddsctl ${path}`);
      expect(r.stdout).toContain("Examples:");
      for (const e of spec.examples) expect(r.stdout).toContain(`$ ${e}`);
      expect(r.stderr).toBe("");
    });
  }

  it("every noun answers --help and lists its verbs", async () => {
    for (const noun of NOUNS) {
      const r = await run(box, [noun, "--help"]);
      expect(r.exitCode).toBe(0);
      for (const spec of VISIBLE.filter((c) => words(c).length > 1 && words(c)[0] === noun)) {
        expect(r.stdout, noun).toMatch(new RegExp(`^  ${words(spec)[1]}\\b`, "m"));
      }
    }
  });
});
