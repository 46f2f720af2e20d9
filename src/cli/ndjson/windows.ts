import type { PrefixDigest, SplitChunk, SplitLine } from "./line-splitter.js";

/** Lines per window: the bulk limit, so a window of clean lines is exactly one request. */
export const WINDOW_LINES = 100;

/**
 * A run of consecutive input lines, aligned on multiples of {@link WINDOW_LINES}
 * (lines 1-100, 101-200, …). Windows are the unit of progress: batches never cross
 * them, so which lines travel together depends only on positions in the file, never on
 * which other lines were rejected; a window is checkpointed once all of it is done.
 */
export interface Window {
  first: number;
  last: number;
  lines: SplitLine[];
  /** Hash of the input through the end of `last` (what a checkpoint records). */
  digest: PrefixDigest;
}

/** Groups the splitter's output into aligned windows. */
export async function* windows(chunks: AsyncIterable<SplitChunk>, size = WINDOW_LINES): AsyncGenerator<Window> {
  const digests = new Map<number, PrefixDigest>();
  let lines: SplitLine[] = [];
  const close = (): Window => {
    const first = lines[0].no;
    const last = lines[lines.length - 1].no;
    const digest = digests.get(last);
    // The splitter emits a digest at every multiple of `size` and at the last line.
    if (!digest) throw new Error(`no input digest at line ${last}`);
    for (const line of digests.keys()) if (line <= last) digests.delete(line);
    const w = { first, last, lines, digest };
    lines = [];
    return w;
  };
  for await (const chunk of chunks) {
    for (const d of chunk.digests) digests.set(d.line, d);
    for (const line of chunk.lines) {
      lines.push(line);
      if (line.no % size === 0) yield close();
    }
  }
  if (lines.length > 0) yield close();
}
