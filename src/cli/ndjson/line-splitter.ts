import { createHash, type Hash } from "node:crypto";

/** One line of the input: its 1-based number and its text without the line terminator. */
export interface TextLine {
  no: number;
  text: string;
}

/** A line longer than the limit: only its length and a short prefix were kept. */
export interface OverLongLine {
  no: number;
  overLong: { bytes: number; prefix: string };
}

/** A line as the splitter yields it. */
export type SplitLine = TextLine | OverLongLine;

/** sha256 of the input's bytes from the start through the end of line `line`. */
export interface PrefixDigest {
  line: number;
  /** Bytes from the start of the input through that line's terminator. */
  bytes: number;
  sha256: string;
}

/** What one chunk of input produced. */
export interface SplitChunk {
  lines: SplitLine[];
  /** Digests at every `digestEvery`-th line and at the last line of the input. */
  digests: PrefixDigest[];
}

/** Options of {@link splitLines}. */
export interface SplitOptions {
  /** Longest line kept, in bytes, without its terminator (default 1 MiB). */
  maxLineBytes?: number;
  /** Emit a prefix digest every this many lines (default 100). */
  digestEvery?: number;
}

/** How much of an over-long line is kept, so a reject shows what it was. */
export const OVER_LONG_PREFIX_BYTES = 1024;

/** True for lines that were too long to keep. */
export function isOverLong(line: SplitLine): line is OverLongLine {
  return "overLong" in line;
}

/**
 * Splits a byte stream into lines in bounded memory. readline cannot bound a line, so
 * this scans chunks for `\n` itself: a line growing past `maxLineBytes` stops being
 * buffered (only a prefix and its length are kept), whatever its size. It also hashes
 * every byte on the way, so a checkpoint can later prove it describes this very input.
 * Lines are yielded per chunk: an await per line would cost more than the parsing.
 */
export async function* splitLines(source: AsyncIterable<Buffer | string>, options: SplitOptions = {}): AsyncGenerator<SplitChunk> {
  const max = options.maxLineBytes ?? 1024 * 1024;
  const every = options.digestEvery ?? 100;
  const hash = createHash("sha256");
  const line = new PendingLine(max);
  let no = 0;
  let offset = 0;
  let lastDigest = 0;
  for await (const raw of source) {
    const chunk = typeof raw === "string" ? Buffer.from(raw) : raw;
    const out: SplitChunk = { lines: [], digests: [] };
    let start = 0;
    let hashed = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      out.lines.push(line.finish(++no, chunk, start, nl));
      start = nl + 1;
      if (no % every === 0) {
        hash.update(chunk.subarray(hashed, start));
        hashed = start;
        out.digests.push(digest(hash, no, offset + start));
        lastDigest = no;
      }
    }
    line.add(chunk, start);
    hash.update(chunk.subarray(hashed));
    offset += chunk.length;
    if (out.lines.length > 0) yield out;
  }
  const out: SplitChunk = { lines: [], digests: [] };
  if (line.pending) out.lines.push(line.finish(++no, Buffer.alloc(0), 0, 0));
  if (no > lastDigest) out.digests.push(digest(hash, no, offset));
  if (out.lines.length > 0 || out.digests.length > 0) yield out;
}

function digest(hash: Hash, line: number, bytes: number): PrefixDigest {
  return { line, bytes, sha256: hash.copy().digest("hex") };
}

/** The line being assembled across chunks, dropped to a prefix once it is too long. */
class PendingLine {
  private parts: Buffer[] = [];
  private length = 0;
  private prefix: Buffer | undefined;

  constructor(private readonly max: number) {}

  get pending(): boolean {
    return this.length > 0;
  }

  /** Keeps `chunk[start..]`, the start of a line that continues in the next chunk. */
  add(chunk: Buffer, start: number): void {
    if (start >= chunk.length) return;
    this.grow(chunk.subarray(start));
  }

  /** Completes line `no` with `chunk[start..end)` and resets for the next one. */
  finish(no: number, chunk: Buffer, start: number, end: number): SplitLine {
    let result: SplitLine;
    if (this.length === 0 && end - start <= this.max) {
      // The common case: the whole line lies in this chunk; decode without copying.
      result = { no, text: trimLine(chunk.toString("utf8", start, end), no) };
    } else {
      this.grow(chunk.subarray(start, end));
      result = this.prefix
        ? { no, overLong: { bytes: this.length, prefix: decodePrefix(this.prefix) } }
        : { no, text: trimLine(Buffer.concat(this.parts, this.length).toString("utf8"), no) };
    }
    this.parts = [];
    this.length = 0;
    this.prefix = undefined;
    return result;
  }

  private grow(piece: Buffer): void {
    if (this.prefix) {
      // Already over the limit: only top the prefix up to its size.
      const room = OVER_LONG_PREFIX_BYTES - this.prefix.length;
      if (room > 0) this.prefix = Buffer.concat([this.prefix, piece.subarray(0, room)]);
    } else if (this.length + piece.length > this.max) {
      // Past the limit: keep a prefix for the reject and stop buffering.
      const all = Buffer.concat([...this.parts, piece.subarray(0, OVER_LONG_PREFIX_BYTES)]);
      this.prefix = Buffer.from(all.subarray(0, OVER_LONG_PREFIX_BYTES));
      this.parts = [];
    } else {
      // Copy: the chunk's memory is reused by the stream after we return.
      this.parts.push(Buffer.from(piece));
    }
    this.length += piece.length;
  }
}

/** Drops a trailing `\r` (CRLF files) and, on line 1, a UTF-8 byte order mark. */
function trimLine(text: string, no: number): string {
  let t = text.endsWith("\r") ? text.slice(0, -1) : text;
  if (no === 1 && t.charCodeAt(0) === 0xfeff) t = t.slice(1);
  return t;
}

/** Decodes a prefix cut at a byte limit, dropping a character split by the cut. */
function decodePrefix(bytes: Buffer): string {
  return bytes.toString("utf8").replace(/\uFFFD+$/, "");
}
