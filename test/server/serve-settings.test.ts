import { execa } from "execa";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import serve, { SERVE_GLOBALS } from "../../src/cli/commands/serve/serve.js";
import { envNames, longFlag, type ArgDefs } from "../../src/cli/core/args.js";
import { BIN, ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";
import { freePort } from "../helpers/pg-cluster.mjs";

/**
 * Every flag of `serve` has an environment variable (declared with the flag, `env`), named
 * by `serve --help` and listed in the one table of docs/deployment.md; the precedence is
 * flag > variable > default. A flag declared later without a variable, or left out of the
 * table, fails here.
 */
const PAGE = readFileSync(resolve(import.meta.dirname, "../../docs/deployment.md"), "utf8");

/** The rows of the table after `<!-- serve-settings -->`: flag cell → variable cell. */
function settingsTable(): Map<string, string> {
  const lines = PAGE.split("\n");
  const at = lines.findIndex((l) => l.trim() === "<!-- serve-settings -->");
  expect(at, "docs/deployment.md has the serve-settings table").toBeGreaterThan(0);
  const rows = new Map<string, string>();
  for (const line of lines.slice(at + 3)) {
    if (!line.startsWith("|")) break;
    const [flag, variable] = line
      .split(/(?<!\\)\|/)
      .slice(1, 3)
      .map((c) => c.trim());
    rows.set(flag, variable);
  }
  return rows;
}

/** The flag of a row's first cell: `--port <port>` → `--port`. */
const flagOf = (cell: string) => /^`(--[a-z-]+)/.exec(cell)?.[1];

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box?.cleanup());

describe("serve's settings", () => {
  const declared = Object.entries(serve.args as ArgDefs).filter(([, def]) => !def.positional);

  it("declare an environment variable on every flag", () => {
    expect(declared.length).toBeGreaterThan(10);
    expect(declared.filter(([, def]) => envNames(def).length === 0).map(([key, def]) => longFlag(key, def))).toEqual([]);
    const names = declared.flatMap(([, def]) => envNames(def));
    expect(new Set(names).size, "no variable serves two flags").toBe(names.length);
  });

  it("are listed, every one and nothing else, in the table of docs/deployment.md", () => {
    const table = settingsTable();
    const rows = new Map([...table].map(([cell, variable]) => [flagOf(cell), variable]));
    for (const [key, def] of declared) {
      const variable = rows.get(longFlag(key, def));
      expect(variable, `${longFlag(key, def)} has a row`).toBeDefined();
      for (const name of envNames(def)) expect(variable, longFlag(key, def)).toContain(`\`${name}`);
    }
    for (const [flag, env] of SERVE_GLOBALS) {
      const variable = rows.get(flag.split(" ")[0]);
      expect(variable, `${flag} has a row`).toBe(`\`${env}\``);
    }
    const known = new Set([...declared.map(([key, def]) => longFlag(key, def)), ...SERVE_GLOBALS.map(([flag]) => flag.split(" ")[0])]);
    expect([...rows.keys()].filter((flag) => !known.has(flag!))).toEqual([]);
  });

  it("are named by serve --help, each beside its flag", async () => {
    const r = await ddsctl(box, ["serve", "--help"], { stdoutTTY: { columns: 400 } });
    expect(r.exitCode).toBe(0);
    for (const [key, def] of declared) {
      const line = r.stdout.split("\n").find((l) => l.trimStart().startsWith(longFlag(key, def)));
      expect(line, longFlag(key, def)).toContain(`(env: ${envNames(def).join(", ")})`);
    }
    for (const [flag, env] of SERVE_GLOBALS) expect(r.stdout).toContain(`${flag} (${env})`);
  });

  it("refuse a bad value, naming the variable it came from (exit 2)", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ DDS_LOG_FORMAT: "xml" }, /^error: DDS_LOG_FORMAT=xml: use one of plain, json$/m],
      [{ DDS_PORT: "http" }, /^error: DDS_PORT must be an integer from 0 to 65535, got "http"$/m],
      [{ PORT: "99999" }, /^error: PORT must be an integer/m],
      [{ DDS_LEASE: "10ms" }, /^error: DDS_LEASE 10ms: a lease shorter than 1s/m],
      [{ DDS_MIGRATE: "maybe" }, /^error: DDS_MIGRATE=maybe: use true or false/m],
      [{ DDS_WEBHOOK_TIMEOUT: "-1s" }, /^error: DDS_WEBHOOK_TIMEOUT -1s/m],
      [{ DDS_PIPELINE_CONCURRENCY: "0" }, /^error: DDS_PIPELINE_CONCURRENCY must be an integer from 1 to 1000/m],
      // Not a flag's, but read at start all the same: a key that cannot be used refuses the start, not the first webhook.
      [{ DDS_SECRET_KEY: "not a key!" }, /^error: key 1 of DDS_SECRET_KEY is not 32 bytes of base64 or 64 hex digits; make one with: /m],
      [{ DDS_SECRET_KEY: "c2hvcnQ=" }, /^error: key 1 of DDS_SECRET_KEY is not 32 bytes/m],
    ];
    for (const [env, message] of cases) {
      const r = await ddsctl(box, ["serve"], { env });
      expect(r.exitCode, JSON.stringify(env)).toBe(2);
      expect(r.stderr, JSON.stringify(env)).toMatch(message);
      // One line: the error and nothing else.
      expect(r.stderr.trim().split("\n"), JSON.stringify(env)).toHaveLength(1);
    }
    // The flag, when given, is what is named (and what is read).
    const flag = await ddsctl(box, ["serve", "--port", "http"], { env: { DDS_PORT: "8080" } });
    expect(flag.stderr).toMatch(/^error: --port must be an integer from 0 to 65535, got "http"$/m);
  });

  it("take the flag over the variable, the variable over the default, DDS_PORT over PORT", async () => {
    const [a, b, c] = [await freePort(), await freePort(), await freePort()];
    /** The port and log format a real `serve` starts with under `env` and `args`. */
    const started = async (args: string[], env: Record<string, string>) => {
      const proc = execa("node", [BIN, "serve", ...args], { cwd: box.dir, env: { ...box.env, ...env }, reject: false });
      let stderr = "";
      const port = await new Promise<number>((done, fail) => {
        proc.stderr!.on("data", (d: Buffer) => {
          stderr += d.toString();
          const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(stderr);
          if (m) done(Number(m[1]));
        });
        proc.then((r) => fail(new Error(`serve exited ${r.exitCode}: ${stderr}`)), fail);
      });
      proc.kill("SIGTERM");
      await proc;
      return { port, json: stderr.split("\n").some((l) => l.startsWith('{"level":')) };
    };
    expect(await started([], { PORT: String(a) })).toEqual({ port: a, json: false });
    expect(await started([], { PORT: String(a), DDS_PORT: String(b), DDS_LOG_FORMAT: "json" })).toEqual({ port: b, json: true });
    expect(await started(["--port", String(c), "--log-format", "plain"], { PORT: String(a), DDS_PORT: String(b), DDS_LOG_FORMAT: "json" })).toEqual({ port: c, json: false });
  }, 60_000);
});
