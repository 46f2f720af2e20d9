import type { Readable, Writable } from "node:stream";

/** A stream the CLI writes to, with the terminal facts node gives a TTY stream. */
export type OutStream = Writable & { isTTY?: boolean; columns?: number };

/** The stream the CLI reads from (`-f -`, `import … -`). */
export type InStream = Readable & { isTTY?: boolean };

/** The environment as the CLI sees it (never process.env directly, so tests inject it). */
export type Env = Record<string, string | undefined>;

/**
 * Everything the CLI touches outside itself: its streams, environment and signals. `main` takes one, so tests run the real CLI in-process with their own streams
 * and environment, as wrangler's `runWrangler` and Hono's `testClient` do.
 */
export interface CliIO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  env: Env;
  /**
   * Subscribes to Ctrl-C (SIGINT) and returns the unsubscribe function. Only a real
   * process has one; an in-process run simulates it by calling the handler.
   */
  onInterrupt?(handler: () => void): () => void;
  /**
   * Ends the process at once with this code: after Ctrl-C, or when the reader of stdout has
   * gone (`| head`). Only a real process has one; an in-process run returns from `main`.
   */
  exit?(code: number): void;
}

/** The real process's streams, environment and signals. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // process.stdin builds its stream on first use (a few ms): only commands that read pay.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    onInterrupt(handler) {
      process.on("SIGINT", handler);
      return () => process.off("SIGINT", handler);
    },
    exit: (code) => process.exit(code),
  };
}
