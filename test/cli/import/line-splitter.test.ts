import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { batchKey, toBatches } from "../../../src/cli/ndjson/batches.js";
import { Dispatcher } from "../../../src/cli/ndjson/dispatcher.js";
import { isOverLong, splitLines, type SplitChunk, type SplitLine } from "../../../src/cli/ndjson/line-splitter.js";
import { windows } from "../../../src/cli/ndjson/windows.js";

/** Feeds `text` to the splitter in chunks of `size` bytes. */
async function split(text: string | Buffer, size: number, options = {}): Promise<SplitChunk[]> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  }
  const out: SplitChunk[] = [];
  for await (const c of splitLines(chunks(), options)) out.push(c);
  return out;
}

const linesOf = (chunks: SplitChunk[]): SplitLine[] => chunks.flatMap((c) => c.lines);
const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

describe("splitLines", () => {
  it("yields the same lines whatever the chunk size, with CRLF, a BOM and no final newline", async () => {
    const text = "\uFEFF{\"a\":1}\r\n\n{\"é\":\"ü\"}\n  \nlast";
    for (const size of [1, 2, 3, 7, 64, 4096]) {
      const lines = linesOf(await split(text, size));
      expect(lines, `chunk size ${size}`).toEqual([
        { no: 1, text: '{"a":1}' },
        { no: 2, text: "" },
        { no: 3, text: '{"é":"ü"}' },
        { no: 4, text: "  " },
        { no: 5, text: "last" },
      ]);
    }
  });

  it("drops an over-long line to a prefix without buffering it, and keeps counting lines", async () => {
    const long = "x".repeat(5000);
    for (const size of [10, 333, 100_000]) {
      const lines = linesOf(await split(`ok\n${long}\nafter\n`, size, { maxLineBytes: 100 }));
      expect(lines.map((l) => l.no)).toEqual([1, 2, 3]);
      const over = lines[1];
      expect(isOverLong(over)).toBe(true);
      if (isOverLong(over)) {
        expect(over.overLong.bytes).toBe(5000);
        expect(over.overLong.prefix).toBe("x".repeat(1024));
      }
      expect(lines[2]).toEqual({ no: 3, text: "after" });
    }
  });

  it("emits prefix digests every N lines and at the end that equal sha256 of those bytes", async () => {
    const lines = Array.from({ length: 25 }, (_, i) => `{"n":${i}}`);
    const text = `${lines.join("\n")}\n`;
    const digests = (await split(text, 17, { digestEvery: 10 })).flatMap((c) => c.digests);
    expect(digests.map((d) => d.line)).toEqual([10, 20, 25]);
    for (const d of digests) {
      const prefix = Buffer.from(text).subarray(0, d.bytes);
      expect(prefix.toString().split("\n").length - 1).toBe(d.line);
      expect(d.sha256).toBe(sha(prefix));
    }
  });
});

describe("windows and batches", () => {
  it("aligns windows on multiples of 100 lines, each with its digest", async () => {
    const text = Array.from({ length: 250 }, (_, i) => `{"n":${i}}\n`).join("");
    async function* chunks() {
      yield Buffer.from(text);
    }
    const ws = [];
    for await (const w of windows(splitLines(chunks()))) ws.push(w);
    expect(ws.map((w) => [w.first, w.last, w.digest.line])).toEqual([
      [1, 100, 100],
      [101, 200, 200],
      [201, 250, 250],
    ]);
  });

  it("derives keys from the kind, the lines and their numbers, and splits large windows by size", () => {
    const a = [{ no: 1, text: "x", item: {} }];
    expect(batchKey("contributions", a)).toBe(batchKey("contributions", [{ no: 1, text: "x", item: { other: true } }]));
    expect(batchKey("contributions", a)).not.toBe(batchKey("contributions", [{ no: 2, text: "x", item: {} }]));
    expect(batchKey("contributions", a)).not.toBe(batchKey("records-update", a));
    expect(batchKey("contributions", a)).toMatch(/^import:[0-9a-f]{64}$/);
    const big = Array.from({ length: 10 }, (_, i) => ({ no: i + 1, text: "y".repeat(300), item: {}, order: `c${i % 2}` }));
    const batches = toBatches("contributions", big, 1000);
    expect(batches.map((b) => b.lines.length)).toEqual([3, 3, 3, 1]);
    expect([...batches[0].orderKeys].sort()).toEqual(["c0", "c1"]);
  });
});

describe("Dispatcher", () => {
  it("runs up to the limit at once but never two requests with a common order key", async () => {
    const d = new Dispatcher(3);
    const log: string[] = [];
    const task = (name: string, ms: number) => async () => {
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${name}`);
    };
    for (const [name, keys, ms] of [["a", ["x"], 30], ["b", ["y"], 5], ["c", ["x"], 5]] as const) {
      await d.slot(new Set(keys));
      void d.run(new Set(keys), task(name, ms));
    }
    await d.idle();
    // c shares "x" with a, so it waits for a although a slot was free.
    expect(log.indexOf("start c")).toBeGreaterThan(log.indexOf("end a"));
    expect(log.indexOf("start b")).toBeLessThan(log.indexOf("end a"));
  });
});
