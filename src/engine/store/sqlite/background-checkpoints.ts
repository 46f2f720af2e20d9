import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import { addonFile } from "./open-file.js";
import type { WalIndexWatch } from "./wal-index-watch.js";

/**
 * Frames waiting in the WAL (written, not yet copied into the database file) before a
 * checkpoint is asked of the thread: about 10 MB. The writer's own automatic checkpoint
 * still runs at 10,000 frames (sqlite-store.ts); by then the thread has copied all but the
 * last few thousand, so the writer copies those and the WAL starts over from its beginning.
 */
export const THREAD_FRAMES = 2_500;

/**
 * The thread's code, run from this string rather than a file of its own: the CLI is one
 * bundled file (scripts/bundle.mjs), and a thread needs a file or a string. It opens its
 * own connection (busy_timeout 0: a PASSIVE checkpoint never waits for a lock, it copies
 * what it can) and answers each "checkpoint" with "done". On "close" it closes the
 * connection and ends: if it is the last connection, SQLite checkpoints the rest and
 * removes the WAL then, as the writer's close would have.
 */
const THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.lib);
const db = new Database(workerData.path, { fileMustExist: true, nativeBinding: workerData.addon });
db.pragma("busy_timeout = 0");
db.pragma("cache_size = 16");
parentPort.on("message", (m) => {
  if (m === "checkpoint") {
    let copied = 0;
    try {
      const [row] = db.pragma("wal_checkpoint(PASSIVE)");
      copied = row ? Number(row.checkpointed) : 0;
    } catch {
      // Busy or failing: the writer's own checkpoint still runs.
    }
    parentPort.postMessage({ done: copied });
  } else if (m === "close") {
    db.close();
    parentPort.close();
  }
});
`;

/** See backgroundCheckpoints. */
export interface BackgroundCheckpoints {
  /** Called after each commit of the writer: asks the thread for a checkpoint once enough frames wait (starting it the first time). */
  afterCommit(): void;
  /** Whether the thread was started (tests, the bench). */
  readonly started: boolean;
  /** Frames the thread has copied so far, as its checkpoints reported them. */
  readonly copied: number;
  /** Resolves when no checkpoint is in flight. */
  idle(): Promise<void>;
  /**
   * Closes the thread's connection and ends it; call after the writer's own connection is
   * closed, and before the wal-index watch is. Undefined (and done at once) when no thread
   * was started.
   */
  close(): Promise<void> | undefined;
}

/** What opening a connection in the thread needs: better-sqlite3's entry module and its addon. */
export interface ThreadModules {
  lib: string;
  addon: string;
}

/** better-sqlite3's entry module and the addon open-file.ts found, if it found a file (a thread cannot be handed a loaded addon). */
export function threadModules(): ThreadModules | undefined {
  const addon = addonFile();
  if (addon === undefined) return undefined;
  const pkg = createRequire(import.meta.url).resolve("better-sqlite3/package.json");
  return { lib: join(dirname(pkg), "lib", "index.js"), addon };
}

/**
 * Checkpoints in a thread of their own. Each commit appends the pages it changed to the WAL;
 * a checkpoint copies them back into the database file and syncs it. SQLite runs that inside
 * the commit that crosses its threshold, on the writer's thread: about a tenth of a
 * record-heavy import's time, while the machine's other core waited. Here the thread copies
 * them meanwhile, on a connection of its own (SQLite lets a checkpoint run beside a writer:
 * it only copies frames no reader still needs, and never blocks the writer), and the writer's
 * automatic checkpoint is left only the frames written since.
 *
 * Started on the first commit that leaves {@link THREAD_FRAMES} frames waiting, once about as
 * many were appended since the store opened: a command that writes little never starts a
 * thread, not even beside a process that filled the WAL. Told by the writer, not by polling:
 * frames only arrive with commits, and the counts are read through the store's wal-index
 * watch (its one descriptor of the `-shm` file). If the thread cannot start or fails,
 * nothing changes but that: the writer checkpoints as it always did.
 */
export function backgroundCheckpoints(path: string, wal: WalIndexWatch, modules: () => ThreadModules | undefined = threadModules): BackgroundCheckpoints {
  /**
   * Frames appended since this store opened, counted at its commits: a process that writes
   * little into a database another process fills (a CLI command beside `serve`) never
   * starts a thread for the other's frames.
   */
  let appended = 0;
  let lastMax = wal.frames()?.max ?? 0;
  let worker: Worker | undefined;
  let failed = false;
  let closed = false;
  let inFlight: { promise: Promise<void>; resolve: () => void } | undefined;
  let copied = 0;
  let began = false;
  const settle = () => {
    const f = inFlight;
    inFlight = undefined;
    f?.resolve();
  };
  const start = (): Worker | undefined => {
    const m = modules();
    if (!m) {
      failed = true;
      return undefined;
    }
    began = true;
    let w: Worker;
    try {
      w = new Worker(THREAD, { eval: true, workerData: { path, ...m }, resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 1 } });
    } catch {
      failed = true;
      return undefined;
    }
    // The thread never keeps a process alive on its own.
    w.unref();
    w.on("message", (m: { done: number }) => {
      copied += m.done;
      settle();
    });
    w.on("error", () => {
      failed = true;
      worker = undefined;
      settle();
    });
    w.on("exit", () => {
      worker = undefined;
      settle();
    });
    return w;
  };
  return {
    get started() {
      return began;
    },
    get copied() {
      return copied;
    },
    afterCommit() {
      if (closed || failed) return;
      const f = wal.frames();
      if (!f) return;
      // A smaller last frame: the WAL started over from its beginning since the last look.
      appended += f.max >= lastMax ? f.max - lastMax : f.max;
      lastMax = f.max;
      if (inFlight || appended < THREAD_FRAMES || f.max - f.backfilled < THREAD_FRAMES) return;
      worker ??= start();
      if (!worker) return;
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      inFlight = { promise, resolve };
      worker.postMessage("checkpoint");
    },
    idle: () => inFlight?.promise ?? Promise.resolve(),
    close() {
      if (closed) return undefined;
      closed = true;
      const w = worker;
      if (!w) return undefined;
      const exited = new Promise<void>((r) => w.once("exit", () => r()));
      // Awaited: the process must not end (an unreferenced thread would let it) before the
      // thread's connection is closed and the WAL removed.
      w.ref();
      w.postMessage("close");
      return exited;
    },
  };
}
