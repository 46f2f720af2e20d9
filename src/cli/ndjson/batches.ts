import { createHash } from "node:crypto";
import { BULK_MAX_ITEMS } from "../../contract/schemas/index.js";

/**
 * Largest sum of raw line lengths in one request. The service refuses bulk bodies over
 * 10 MB; lines may be up to 1 MiB each, so 100 of them could exceed it. The margin covers
 * names replaced by ids and the envelope.
 */
export const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/** A line that will be sent: where it came from, and the item built from it. */
export interface BatchLine {
  no: number;
  /** The line as read, for the key and for a reject. */
  text: string;
  item: unknown;
  /**
   * What the service orders by: items with the same key must reach it in file order
   * (the contextId of a contribution, the recordId of a record update).
   */
  order?: string;
}

/** One bulk request: its lines, its Idempotency-Key, and the order keys it touches. */
export interface Batch {
  lines: BatchLine[];
  key: string;
  orderKeys: Set<string>;
}

/**
 * The Idempotency-Key of a batch: a hash of the import kind and of exactly the lines
 * sent, with their line numbers. The same file imported again (after a crash, or a
 * plain rerun) produces the same keys, so the service replays instead of re-applying.
 */
export function batchKey(kind: string, lines: readonly BatchLine[]): string {
  const h = createHash("sha256").update(`${kind}\n`);
  for (const l of lines) h.update(`${l.no}\t${l.text}\n`);
  return `import:${h.digest("hex")}`;
}

/** Cuts a window's sendable lines into requests of at most 100 items and ~8 MiB. */
export function toBatches(kind: string, lines: readonly BatchLine[], maxBytes = MAX_BATCH_BYTES): Batch[] {
  const batches: Batch[] = [];
  let current: BatchLine[] = [];
  let bytes = 0;
  const close = () => {
    if (current.length === 0) return;
    const orderKeys = new Set<string>();
    for (const l of current) if (l.order !== undefined) orderKeys.add(l.order);
    batches.push({ lines: current, key: batchKey(kind, current), orderKeys });
    current = [];
    bytes = 0;
  };
  for (const line of lines) {
    const size = line.text.length;
    if (current.length >= BULK_MAX_ITEMS || (current.length > 0 && bytes + size > maxBytes)) close();
    current.push(line);
    bytes += size;
  }
  close();
  return batches;
}
