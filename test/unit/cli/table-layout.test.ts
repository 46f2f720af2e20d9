/**
 * Tables are laid out in terminal columns, not string lengths: a name in CJK (two columns
 * a character) or with an emoji keeps every column after it aligned, and cutting never
 * splits a character or overruns the column.
 */
import { describe, expect, it } from "vitest";
import { displayWidth, layoutTable, truncate, type Cell } from "../../../src/cli/output/table-layout.js";

const cells = (...texts: string[]): Cell[] => texts.map((text) => ({ text }));

/** The terminal column each cell of a laid-out line starts at. */
function starts(line: string, parts: string[]): number[] {
  let at = 0;
  return parts.map((p) => {
    const i = line.indexOf(p, at);
    const col = displayWidth(line.slice(0, i));
    at = i + p.length;
    return col;
  });
}

describe("display width", () => {
  it("counts CJK and emoji as two columns, combining marks as none", () => {
    expect(displayWidth("case-42")).toBe(7);
    expect(displayWidth("王小明")).toBe(6);
    expect(displayWidth("🏠 home")).toBe(7);
    expect(displayWidth("👨‍👩‍👧")).toBe(2);
    expect(displayWidth("cafe\u0301")).toBe(4);
  });

  it("cuts by columns and whole symbols", () => {
    expect(truncate("王小明的贷款", 7)).toBe("王小明…");
    expect(displayWidth(truncate("王小明的贷款", 6))).toBeLessThanOrEqual(6);
    expect(truncate("👨‍👩‍👧👨‍👩‍👧", 3)).toBe("👨‍👩‍👧…");
    expect(truncate("short", 10)).toBe("short");
  });
});

describe("layoutTable", () => {
  it("keeps the columns after a CJK or emoji name aligned", () => {
    const rows = [cells("王小明-purchase", "active", "x"), cells("🏠-refinance", "completed", "y"), cells("okafor-purchase", "active", "z")];
    const lines = layoutTable(cells("NAME", "STATUS", "NOTE"), rows);
    const columns = [lines[0], ...lines.slice(1)].map((l, i) => starts(l, i === 0 ? ["NAME", "STATUS", "NOTE"] : [rows[i - 1][0].text, rows[i - 1][1].text, rows[i - 1][2].text]));
    for (const c of columns) expect(c).toEqual(columns[0]);
  });

  it("fits a terminal's width measured in columns", () => {
    const rows = [cells("王小明王小明王小明王小明王小明", "active"), cells("plain-name", "draft")];
    for (const line of layoutTable(cells("NAME", "STATUS"), rows, 20)) expect(displayWidth(line)).toBeLessThanOrEqual(20);
  });
});
