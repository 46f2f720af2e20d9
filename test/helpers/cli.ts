import { execa, type Options } from "execa";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { inject } from "vitest";

/** Absolute path of the real executable under test. */
export const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");

/** True when the tests run in the `remote` project: every CLI call goes over HTTP. */
export const REMOTE = process.env.DDS_TEST_REMOTE === "1";

/** A throwaway directory with its own database (or remote workspace) and config home. */
export interface Sandbox {
  dir: string;
  /** The local database; in remote mode the server's database (inspect it, never write it). */
  db: string;
  mode: "local" | "remote";
  /** The target banner the CLI prints first on stderr. */
  banner: string;
  env: Record<string, string>;
  cleanup(): void;
}

/**
 * Creates a sandbox: a temp dir and an isolated config home, plus a database of its own
 * (local mode) or a fresh workspace with an admin token on the shared test server (remote
 * mode), so the same test runs unchanged against both.
 */
export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), "ddsctl-test-"));
  const base = { XDG_CONFIG_HOME: join(dir, "config"), NO_COLOR: "1" };
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  if (REMOTE) {
    const url = inject("remoteUrl");
    const db = inject("remoteDb");
    const out = execFileSync("node", [BIN, "tokens", "create", "--workspace", `ws-${randomUUID()}`, "--scope", "admin", "--json", "--quiet", "--local", db], {
      encoding: "utf8",
    });
    const { token } = JSON.parse(out) as { token: string };
    return { dir, db, mode: "remote", banner: `remote ${url}`, env: { ...base, DDS_BASE_URL: url, DDS_API_TOKEN: token }, cleanup };
  }
  const db = join(dir, "dds.db");
  return { dir, db, mode: "local", banner: `local ${db}`, env: { ...base, DDS_DB: db }, cleanup };
}

/** Result of one CLI run. */
export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws when it is not). */
  json<T = any>(): T; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests index freely into API JSON
}

/** Runs `ddsctl` with args in the sandbox; never throws on a non-zero exit. */
export async function ddsctl(box: Sandbox, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
  const opts: Options = {
    cwd: box.dir,
    env: { ...box.env, ...options.env },
    extendEnv: true,
    reject: false,
    input: options.input,
    stripFinalNewline: false,
  };
  const r = await execa("node", [BIN, ...args], opts);
  const stdout = String(r.stdout ?? "");
  return {
    exitCode: r.exitCode ?? -1,
    stdout,
    stderr: String(r.stderr ?? ""),
    json: () => JSON.parse(stdout),
  };
}
