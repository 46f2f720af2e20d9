import { describe, expect, it } from "vitest";
import { flat } from "../../src/util/flat-string.js";

describe("flat", () => {
  it("gives back the same text, whatever it was built from", () => {
    const parts = ["a", "\u0000", "é", "😀", "", "tab\there"];
    let built = "";
    for (let i = 0; i < 50; i++) built += parts[i % parts.length] + String(i);
    const expected = Array.from({ length: 50 }, (_, i) => parts[i % parts.length] + String(i)).join("");
    expect(flat(built)).toBe(expected);
    expect(flat("")).toBe("");
    expect(flat(`${1}\u0000${2}\u0000["x"]`)).toBe('1\u00002\u0000["x"]');
  });
});
