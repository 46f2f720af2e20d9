import { execa, type Options } from "execa";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import { inject } from "vitest";
import type { CliIO } from "../../src/cli/core/io.js";
import { main } from "../../src/cli/main.js";

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
  return { dir, db, mode: "local", banner: `local ${db} (workspace default)`, env: { ...base, DDS_DB: db }, cleanup };
}

/** Result of one CLI run. */
export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws when it is not). */
  json<T = any>(): T; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests index freely into API JSON
}

/** A stdout or stderr that keeps what is written, with the TTY facts a test chooses. */
export class CapturedStream extends Writable {
  private readonly chunks: Buffer[] = [];
  isTTY?: boolean;
  columns?: number;

  constructor(tty?: { isTTY: boolean; columns?: number }) {
    super();
    this.isTTY = tty?.isTTY;
    this.columns = tty?.columns;
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    done();
  }

  /** Everything written so far. */
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** How a run is set up: stdin text, extra environment, and which streams are terminals. */
export interface RunOptions {
  input?: string;
  /** A stdin the test feeds itself (instead of `input`). */
  stdin?: Readable;
  env?: Record<string, string>;
  /** Pretend stdout is a terminal this many columns wide. */
  stdoutTTY?: { columns: number };
  /** Pretend stderr is a terminal (progress is drawn there). */
  stderrTTY?: boolean;
  /** Pretend stdin is a terminal (prompts would appear; nothing is typed). */
  stdinTTY?: boolean;
  /** Called with the running CLI's Ctrl-C handler, to press Ctrl-C from the test. */
  onInterrupt?: (press: () => void) => void;
}

/**
 * Runs the CLI in-process with `main(argv, io)`: the real commands, parser and service,
 * with captured streams, the sandbox's environment, and its directory as the working
 * directory. Set DDS_TEST_SPAWN=1 to run every call through the real binary instead.
 */
export async function ddsctl(box: Sandbox, args: string[], options: RunOptions = {}): Promise<RunResult> {
  if (process.env.DDS_TEST_SPAWN === "1") return ddsctlBinary(box, args, options);
  const stdout = new CapturedStream(options.stdoutTTY ? { isTTY: true, columns: options.stdoutTTY.columns } : undefined);
  const stderr = new CapturedStream(options.stderrTTY ? { isTTY: true, columns: 100 } : undefined);
  const source = options.stdin ?? Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]);
  const stdin = Object.assign(source, { isTTY: options.stdinTTY });
  const io: CliIO = {
    stdout,
    stderr,
    stdin,
    env: { ...process.env, ...box.env, ...options.env },
    onInterrupt: options.onInterrupt
      ? (handler) => {
          options.onInterrupt!(handler);
          return () => undefined;
        }
      : undefined,
  };
  const cwd = process.cwd();
  // Relative paths (files, the default database) resolve against the sandbox, as with a child process.
  process.chdir(box.dir);
  let exitCode: number;
  try {
    exitCode = await main(args, io);
  } finally {
    process.chdir(cwd);
  }
  const out = stdout.text();
  return { exitCode, stdout: out, stderr: stderr.text(), json: () => JSON.parse(out) };
}

/** Runs the real binary (`bin/ddsctl`) in the sandbox; never throws on a non-zero exit. */
export async function ddsctlBinary(box: Sandbox, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
  const opts: Options = {
    cwd: box.dir,
    env: { ...box.env, ...options.env },
    extendEnv: true,
    reject: false,
    input: options.input,
    stripFinalNewline: false,
  };
  // Executed as a user runs it: its shebang line starts Node with the flags it needs.
  const r = await execa(BIN, args, opts);
  const stdout = String(r.stdout ?? "");
  return {
    exitCode: r.exitCode ?? -1,
    stdout,
    stderr: String(r.stderr ?? ""),
    json: () => JSON.parse(stdout),
  };
}
