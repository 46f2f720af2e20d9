import { describe, expect, it } from "vitest";
import { idText, newId, newIdBytes } from "../../src/util/ids.js";

describe("ids", () => {
  it("are UUIDv7: version 7, the RFC variant, the time of their making, lowercase", () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    // The clock may have moved on by one for a counter that ran out; never backwards.
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after + 1);
  });

  it("sort in the order they were made, also many within one millisecond", () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("read the same as bytes and as text", () => {
    const b = newIdBytes();
    expect(Buffer.from(idText(b).replaceAll("-", ""), "hex").equals(b)).toBe(true);
  });

  it("write every byte value as its two lowercase hex digits, dashes at 8, 13, 18 and 23", () => {
    for (let v = 0; v < 256; v += 16) {
      const b = Buffer.from(Array.from({ length: 16 }, (_, i) => (v + i) & 0xff));
      const hex = b.toString("hex");
      expect(idText(b)).toBe(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`);
    }
    // Each call gives a string of its own, though they are written through one buffer.
    const a = idText(Buffer.alloc(16, 0xab));
    const z = idText(Buffer.alloc(16, 0x01));
    expect(a).toBe("abababab-abab-abab-abab-abababababab");
    expect(z).toBe("01010101-0101-0101-0101-010101010101");
  });
});
