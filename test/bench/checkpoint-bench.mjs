// What a commit costs with SQLite's checkpoints on the writer's thread, and with them in a
// thread of their own (src/engine/store/sqlite/background-checkpoints.ts): 40 transactions of
// 3,000 pages each (an import's write groups, or a busy serve's commits), timed one COMMIT at
// a time, the two modes in turns. Standalone: node test/bench/checkpoint-bench.mjs [--rounds 3]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteFile } from "../../dist/engine/store/sqlite/open-file.js";
import { backgroundCheckpoints } from "../../dist/engine/store/sqlite/background-checkpoints.js";
import { watchWalIndex } from "../../dist/engine/store/sqlite/wal-index-watch.js";

const GROUPS = 40;
const PAGES = 3000;

/** One run: every COMMIT's milliseconds. */
async function commitTimes(dir, thread) {
  const path = join(dir, `${thread ? "thread" : "writer"}.db`);
  for (const s of ["", "-wal", "-shm"]) rmSync(path + s, { force: true });
  const raw = openSqliteFile(path);
  // The store's own settings (sqlite-store.ts).
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = NORMAL");
  raw.pragma("wal_autocheckpoint = 10000");
  raw.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)");
  const wal = thread ? watchWalIndex(path) : undefined;
  const checkpoints = wal ? backgroundCheckpoints(path, wal) : undefined;
  const insert = raw.prepare("INSERT INTO t (v) VALUES (?)");
  const value = "x".repeat(4000);
  const times = [];
  for (let g = 0; g < GROUPS; g++) {
    raw.exec("BEGIN IMMEDIATE");
    for (let i = 0; i < PAGES; i++) insert.run(`${value}${g}.${i}`);
    const t = performance.now();
    raw.exec("COMMIT");
    times.push(performance.now() - t);
    checkpoints?.afterCommit();
    // A turn of the event loop between commits, as an import's write groups have.
    await new Promise((r) => setImmediate(r));
  }
  raw.close();
  await checkpoints?.close();
  wal?.close();
  return times;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Medians over rounds of each mode's summed and longest COMMIT. */
export async function runCheckpointBench({ rounds = 3 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bench-checkpoint-"));
  try {
    const sums = { writer: [], thread: [] };
    const longest = { writer: [], thread: [] };
    for (let r = 0; r < rounds; r++) {
      for (const mode of ["writer", "thread"]) {
        const times = await commitTimes(dir, mode === "thread");
        sums[mode].push(times.reduce((a, b) => a + b, 0));
        longest[mode].push(Math.max(...times));
      }
    }
    const rows = GROUPS * PAGES;
    return [
      { name: `SQLite commits, checkpoints on the writer's thread (${GROUPS} x ${PAGES} pages, median of ${rounds})`, rows, seconds: median(sums.writer) / 1000 },
      { name: `SQLite commits, checkpoints in a thread of their own (median of ${rounds})`, rows, seconds: median(sums.thread) / 1000 },
      { name: "commits' time, checkpoint thread / writer's thread", ratio: median(sums.thread) / median(sums.writer), target: "-" },
      { name: "longest commit, checkpoint thread / writer's thread", ratio: median(longest.thread) / median(longest.writer), target: "-" },
      { note: `longest commit: ${median(longest.writer).toFixed(0)} ms with checkpoints on the writer's thread, ${median(longest.thread).toFixed(0)} ms with the thread (medians of ${rounds})` },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf("--rounds");
  console.log(JSON.stringify(await runCheckpointBench({ rounds: i > 0 ? Number(process.argv[i + 1]) : 3 }), null, 2));
}
