import { closeSync, existsSync, openSync, renameSync, statSync, truncateSync, unlinkSync, writeSync } from "node:fs";
import type { Problem } from "../../contract/errors.js";
import type { PriorReject } from "./prior-rejects.js";

/**
 * One failed input line, written as one NDJSON line of the rejects file:
 * `{"line": 7, "error": {<problem>}, "input": "<the line, verbatim>"}`. An over-long line
 * keeps only its first 1 KiB in `input` and says so with `"truncated": true`.
 */
export interface Reject {
  line: number;
  error: Problem;
  input: string;
  truncated?: true;
}

/**
 * The rejects file, opened on the first reject so a clean import leaves no file behind.
 * Rejects arrive in line order (a batch's are written when it completes, in order), so
 * the file is identical however the import was interrupted and resumed. Without a path
 * (a dry run not asked to write one) it only counts.
 */
export class RejectsWriter {
  private fd: number | undefined;
  /** Bytes in the file: recorded in the checkpoint so a resume can cut what followed. */
  bytes = 0;
  count = 0;

  private constructor(private where: string | undefined) {}

  /** The file written (undefined: counting only). */
  get path(): string | undefined {
    return this.where;
  }

  /** A fresh rejects file: any previous one at `path` is removed. */
  static fresh(path: string | undefined): RejectsWriter {
    if (path !== undefined && existsSync(path)) unlinkSync(path);
    return new RejectsWriter(path);
  }

  /**
   * Continues a rejects file from a checkpoint: lines written after the checkpoint (by a
   * run that then died) are cut, because the resumed run writes them again. Undefined when
   * the file is shorter than the checkpoint records (or gone): it is not the file that run
   * wrote, and continuing it would lose the rejects of the lines the resume skips.
   */
  static resume(path: string, bytes: number): RejectsWriter | undefined {
    const size = existsSync(path) ? statSync(path).size : 0;
    if (size < bytes) return undefined;
    const w = new RejectsWriter(path);
    if (size > 0) truncateSync(path, bytes);
    w.bytes = bytes;
    if (bytes > 0) w.fd = openSync(path, "a");
    return w;
  }

  /** Appends rejects (already in line order). */
  write(rejects: Reject[]): void {
    this.writeMerged(rejects, []);
  }

  /**
   * Appends this run's rejects merged in line order with an earlier run's that still hold
   * (a resume rewriting the file keeps the rejects of lines it did not send again).
   */
  writeMerged(rejects: Reject[], prior: PriorReject[]): void {
    this.count += rejects.length;
    if ((rejects.length === 0 && prior.length === 0) || this.path === undefined) return;
    this.fd ??= openSync(this.path, "w");
    const lines: { line: number; text: string }[] = [...prior, ...rejects.map((r) => ({ line: r.line, text: JSON.stringify(r) }))];
    if (prior.length > 0 && rejects.length > 0) lines.sort((a, b) => a.line - b.line);
    const text = lines.map((l) => `${l.text}\n`).join("");
    const buf = Buffer.from(text);
    let done = 0;
    while (done < buf.length) done += writeSync(this.fd, buf, done);
    this.bytes += buf.length;
  }

  /**
   * Puts the file written so far in place of `path` (a resume writes beside the file it
   * rewrites), and goes on writing there; with nothing written, `path` is removed.
   */
  moveTo(path: string): void {
    if (this.where === undefined) return;
    if (existsSync(this.where)) renameSync(this.where, path);
    else if (existsSync(path)) unlinkSync(path);
    this.where = path;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
