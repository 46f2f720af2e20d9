import { closeSync, existsSync, ftruncateSync, openSync, readSync, statSync, unlinkSync, writeSync } from "node:fs";
import { isOverLong, type SplitLine } from "./line-splitter.js";

/** What became of a line: sent and stored (or replayed), rejected, or skipped (blank, another kind). */
export type LineStatus = "stored" | "rejected" | "skipped";

/** A line as the ledger remembers it: what became of it, and a hash of its text then. */
export interface LineMark {
  status: LineStatus;
  hash: number;
}

const STATUS_BYTE: Record<LineStatus, number> = { stored: 1, rejected: 2, skipped: 3 };
const BYTE_STATUS: (LineStatus | undefined)[] = [undefined, "stored", "rejected", "skipped"];

/** Bytes per line: the status, then the hash (32 bits, little-endian). */
const ENTRY = 5;

/**
 * A 32-bit FNV-1a hash of a line's text (of an over-long line, its length and kept
 * prefix): enough to notice that a line was edited, at a few nanoseconds a character.
 */
export function lineHash(line: SplitLine): number {
  const text = isOverLong(line) ? `\u0000${line.overLong.bytes}\u0000${line.overLong.prefix}` : line.text;
  return textHash(text);
}

/** The hash {@link lineHash} gives a line of this text. */
export function textHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Where the ledger of a checkpoint lives: beside it (`case.ndjson.checkpoint.lines`). */
export function ledgerPath(checkpoint: string): string {
  return `${checkpoint.replace(/\.json$/, "")}.lines`;
}

/**
 * What became of every line an import has checkpointed, one fixed-size entry per line in
 * a file beside the checkpoint: so a resume after the rejected lines were edited in place
 * sends exactly those again, and notices a stored line that was edited since, instead of
 * refusing the whole input as changed. Entries are written at their line's offset, so a
 * window written twice (a resumed run) lands in the same place; a resume cuts what lies
 * past the checkpoint, as it does the rejects file.
 */
export class LineLedger {
  private constructor(
    readonly path: string,
    private fd: number,
  ) {}

  /** A new ledger; any previous one at `path` is removed. */
  static fresh(path: string): LineLedger {
    if (existsSync(path)) unlinkSync(path);
    return new LineLedger(path, openSync(path, "w+"));
  }

  /**
   * The ledger of a checkpoint through line `lines`, cut there; undefined when there is
   * none or it holds fewer lines (an older checkpoint, or a removed file).
   */
  static resume(path: string, lines: number): LineLedger | undefined {
    if (!existsSync(path) || statSync(path).size < lines * ENTRY) return undefined;
    const fd = openSync(path, "r+");
    ftruncateSync(fd, lines * ENTRY);
    return new LineLedger(path, fd);
  }

  /** The marks of lines `first`..`last` (all within what was written). */
  read(first: number, last: number): LineMark[] {
    const buf = Buffer.alloc((last - first + 1) * ENTRY);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(this.fd, buf, got, buf.length - got, (first - 1) * ENTRY + got);
      if (n === 0) throw new Error(`line ledger ${this.path} ends before line ${last}`);
      got += n;
    }
    const marks: LineMark[] = [];
    for (let at = 0; at < buf.length; at += ENTRY) {
      const status = BYTE_STATUS[buf[at]];
      if (!status) throw new Error(`line ledger ${this.path} is damaged at line ${first + at / ENTRY}`);
      marks.push({ status, hash: buf.readUInt32LE(at + 1) });
    }
    return marks;
  }

  /** Writes the marks of consecutive lines from `first` on. */
  write(first: number, marks: LineMark[]): void {
    const buf = Buffer.alloc(marks.length * ENTRY);
    marks.forEach((m, i) => {
      buf[i * ENTRY] = STATUS_BYTE[m.status];
      buf.writeUInt32LE(m.hash, i * ENTRY + 1);
    });
    let done = 0;
    while (done < buf.length) done += writeSync(this.fd, buf, done, buf.length - done, (first - 1) * ENTRY + done);
  }

  close(): void {
    closeSync(this.fd);
  }
}
