import { once } from "node:events";
import { createWriteStream, renameSync, rmSync, type WriteStream } from "node:fs";
import type { Writable } from "node:stream";

/**
 * Writes one JSON value per line to a stream, waiting for `drain` when the stream is
 * full, so an export of any size never queues more than a stream buffer in memory. A
 * file is written under a temporary name and renamed at the end: an interrupted export
 * leaves no half file that looks complete.
 */
export class NdjsonSink {
  private failure: Error | undefined;
  lines = 0;

  private constructor(
    private readonly stream: Writable,
    private readonly file?: { path: string; tmp: string },
  ) {
    // A closed pipe (`export … | head`) surfaces here rather than as an uncaught error.
    stream.on("error", (err: Error) => {
      this.failure ??= err;
    });
  }

  /** A sink on an existing stream (stdout), left open at the end. */
  static toStream(stream: Writable): NdjsonSink {
    return new NdjsonSink(stream);
  }

  /** A sink on a new file at `path`, in place only once `end` succeeds. */
  static toFile(path: string): NdjsonSink {
    const tmp = `${path}.tmp-${process.pid}`;
    const stream: WriteStream = createWriteStream(tmp);
    return new NdjsonSink(stream, { path, tmp });
  }

  /** Writes one value as one line. */
  async write(value: unknown): Promise<void> {
    if (this.failure) throw this.failure;
    this.lines++;
    if (!this.stream.write(`${JSON.stringify(value)}\n`)) await this.drained();
    if (this.failure) throw this.failure;
  }

  /**
   * Waits until the stream takes more (or fails, or closes). Both waits are removed as soon
   * as one settles: an export waits thousands of times, and listeners left behind pile
   * up on the stream (MaxListenersExceededWarning after ten).
   */
  private async drained(): Promise<void> {
    const done = new AbortController();
    try {
      await Promise.race([once(this.stream, "drain", { signal: done.signal }), once(this.stream, "close", { signal: done.signal })]);
    } catch (err) {
      // `once` rejects on the stream's error (kept by the listener above), not only on abort.
      if (!done.signal.aborted) this.failure ??= err as Error;
    } finally {
      done.abort();
    }
  }

  /** Finishes: a file is closed and moved into place. */
  async end(): Promise<void> {
    if (!this.file) return;
    this.stream.end();
    await once(this.stream, "finish");
    if (this.failure) throw this.failure;
    renameSync(this.file.tmp, this.file.path);
  }

  /** Gives up: a file's temporary is removed. */
  abort(): void {
    if (!this.file) return;
    this.stream.destroy();
    rmSync(this.file.tmp, { force: true });
  }
}
