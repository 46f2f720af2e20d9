import { execa, type Options } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Absolute path of the real executable under test. */
export const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");

/** A throwaway directory with its own database and config home. */
export interface Sandbox {
  dir: string;
  db: string;
  env: Record<string, string>;
  cleanup(): void;
}

/** Creates a sandbox: a temp dir, a database path in it, and an isolated config home. */
export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), "ddsctl-test-"));
  const db = join(dir, "dds.db");
  return {
    dir,
    db,
    env: { DDS_DB: db, XDG_CONFIG_HOME: join(dir, "config"), NO_COLOR: "1" },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
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
