import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * An import's memory: its live data is about 15–30 MiB whatever the file's length, but V8
 * sizes its heap for throughput, and over a long import that let RSS wander up to ~200 MiB.
 * Three holds keep the peak near 150 MiB (docs/imports.md, "Memory"):
 *
 * - the young generation is at most 2 × 8 MiB, not V8's 2 × 16 MiB: `bin/ddsctl` starts
 *   Node with `--max-semi-space-size=8` (a semi-space's size is fixed when the heap is set
 *   up, so it cannot be set from here; `node bin/ddsctl` runs without it);
 * - the old generation may grow to 1.3 × what its last collection left (set here: V8 reads
 *   this factor after every collection; its own goes up to 4 × when collection is cheap);
 * - past {@link RSS_SOFT_LIMIT}, a full collection after a write group (see collectorAfterGroups).
 *
 * The factor holds for the rest of the process: set only by an import, whose process ends
 * with it (or in a test, where it is harmless).
 */
export function holdHeapSmall(): void {
  if (held) return;
  held = true;
  setFlagsFromString("--heap-growing-percent=30");
}
let held = false;

/** A full collection on demand (V8's gc(), exposed once). */
const collectGarbage = (() => {
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return undefined;
  }
})();

/** Above this RSS an import collects garbage after its write group (see collectorAfterGroups). */
const RSS_SOFT_LIMIT = 140 * 1024 * 1024;
/**
 * How much the heap must have grown past what the last collection left before the next
 * one: a process whose RSS stays above the limit whatever is collected (PostgreSQL's
 * driver and its buffers) would otherwise collect after every group, for little, at a
 * fifth of such an import's time.
 */
const HEAP_STEP = 48 * 1024 * 1024;

/**
 * Returns what runs after each write group's commit: a full collection once RSS is past
 * {@link RSS_SOFT_LIMIT} and the heap has grown {@link HEAP_STEP} since the last one, so
 * the peak stays under the limit at little cost whatever the file's length.
 */
export function collectorAfterGroups(): () => void {
  let live = 0;
  return () => {
    if (collectGarbage && process.memoryUsage.rss() > RSS_SOFT_LIMIT && process.memoryUsage().heapUsed > live + HEAP_STEP) {
      collectGarbage();
      live = process.memoryUsage().heapUsed;
    }
  };
}
