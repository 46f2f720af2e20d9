import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { textHash } from "./line-ledger.js";

/** One entry of an earlier run's rejects file: its line number and its text as written. */
export interface PriorReject {
  line: number;
  text: string;
}

/** Reads a file's lines in order, synchronously, in bounded memory (plus one line). */
class SyncLines {
  private readonly fd: number | undefined;
  private buffered = "";
  private done = false;
  // Keeps a multi-byte character cut by a chunk for the next read.
  private readonly decoder = new StringDecoder("utf8");

  constructor(path: string) {
    this.fd = existsSync(path) ? openSync(path, "r") : undefined;
    if (this.fd === undefined) this.done = true;
  }

  /** The next line without its newline; undefined at the end. */
  next(): string | undefined {
    for (;;) {
      const nl = this.buffered.indexOf("\n");
      if (nl >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        return line;
      }
      if (this.done) {
        const rest = this.buffered;
        this.buffered = "";
        return rest.length > 0 ? rest : undefined;
      }
      const chunk = Buffer.alloc(64 * 1024);
      const n = readSync(this.fd!, chunk, 0, chunk.length, null);
      if (n === 0) {
        this.done = true;
        this.buffered += this.decoder.end();
      } else this.buffered += this.decoder.write(chunk.subarray(0, n));
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }
}

const lineOf = (text: string): number | undefined => {
  const m = /^\{"line":(\d+),/.exec(text);
  return m ? Number(m[1]) : undefined;
};

/**
 * The rejects an earlier run of a resumed import wrote for the lines its checkpoint
 * covers: read once up front (which lines, and a hash of the input each held), then again
 * in line order while the resume rewrites the file, keeping the rejects of lines it does
 * not send again.
 */
export class PriorRejects {
  private reader: SyncLines | undefined;
  private held: PriorReject | undefined;

  private constructor(
    private readonly path: string,
    private readonly through: number,
    /** Per rejected line, the hash of the input its reject shows (absent for a truncated one). */
    readonly inputHashes: Map<number, number | null>,
  ) {}

  /** Reads the rejects of lines 1..`through` in `path` (none when there is no file). */
  static scan(path: string, through: number): PriorRejects {
    const hashes = new Map<number, number | null>();
    const lines = new SyncLines(path);
    try {
      for (let text = lines.next(); text !== undefined; text = lines.next()) {
        const line = lineOf(text);
        if (line === undefined || line > through) continue;
        const entry = JSON.parse(text) as { input?: unknown; truncated?: boolean };
        hashes.set(line, entry.truncated || typeof entry.input !== "string" ? null : textHash(entry.input));
      }
    } finally {
      lines.close();
    }
    return new PriorRejects(path, through, hashes);
  }

  /** The entries of lines up to `last` not read yet, those `keep` accepts, in order. */
  take(last: number, keep: (line: number) => boolean): PriorReject[] {
    this.reader ??= new SyncLines(this.path);
    const out: PriorReject[] = [];
    for (;;) {
      const entry = this.held ?? this.read();
      this.held = undefined;
      if (!entry) break;
      if (entry.line > last) {
        this.held = entry;
        break;
      }
      if (keep(entry.line)) out.push(entry);
    }
    return out;
  }

  /** Stops reading (what lies past the checkpoint is left behind: the resume writes it again). */
  close(): void {
    this.reader?.close();
  }

  private read(): PriorReject | undefined {
    for (let text = this.reader!.next(); text !== undefined; text = this.reader!.next()) {
      const line = lineOf(text);
      if (line !== undefined && line <= this.through) return { line, text };
    }
    return undefined;
  }
}
