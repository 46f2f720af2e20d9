/** Keys for new rows, from a table's identity sequence (see KeyBlocks). */
export type KeySource = (table: "records" | "contributions", n: number) => Promise<number[]>;

/** Keys per fetch from a sequence: a few hundred calls' worth. */
const BLOCK = 16_384;

/**
 * Keys taken from the tables' sequences in blocks, one set per store, so a call's rows get
 * theirs without a round trip. Sequences are not transactional: keys of a group that
 * rolls back are simply never used, and keys left at the end of a group serve the next.
 */
export class KeyBlocks {
  private readonly free = { records: [] as number[], contributions: [] as number[] };
  private readonly next = { records: 0, contributions: 0 };
  constructor(private readonly source: KeySource) {}

  async take(table: "records" | "contributions", n: number): Promise<number[]> {
    if (this.free[table].length - this.next[table] < n) {
      const rest = this.free[table].slice(this.next[table]);
      const more = await this.source(table, Math.max(n - rest.length, BLOCK));
      this.free[table] = [...rest, ...more];
      this.next[table] = 0;
    }
    const start = this.next[table];
    this.next[table] += n;
    return this.free[table].slice(start, start + n);
  }
}
