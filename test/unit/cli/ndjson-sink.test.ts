import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NdjsonSink } from "../../../src/cli/ndjson/ndjson-sink.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the NDJSON sink of export -O", () => {
  it("waits for the file thousands of times without leaving listeners behind (no MaxListenersExceededWarning)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ndjson-sink-"));
    dirs.push(dir);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const sink = NdjsonSink.toFile(join(dir, "out.ndjson"));
      const stream = (sink as unknown as { stream: NodeJS.EventEmitter }).stream;
      const line = { kind: "Contribution", data: { text: "x".repeat(1000) } };
      for (let i = 0; i < 5000; i++) {
        await sink.write({ ...line, i });
        // One error listener (the sink's own) and nothing else, however often it waited.
        expect(stream.listenerCount("error")).toBe(1);
        expect(stream.listenerCount("drain")).toBe(0);
      }
      await sink.end();
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => w.name)).toEqual([]);
      expect(readFileSync(join(dir, "out.ndjson"), "utf8").trim().split("\n")).toHaveLength(5000);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("a file that cannot be written rejects the write with its error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ndjson-sink-"));
    dirs.push(dir);
    const sink = NdjsonSink.toFile(join(dir, "missing", "out.ndjson"));
    await expect(
      (async () => {
        for (let i = 0; i < 5000; i++) await sink.write({ i, pad: "y".repeat(1000) });
      })(),
    ).rejects.toThrow(/ENOENT/);
    sink.abort();
  });
});
