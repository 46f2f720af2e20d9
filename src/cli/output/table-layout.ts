import stringWidth from "string-width";
import { maxOf } from "../../portable/arrays.js";

/** A cell's text and how to colour it once it has its final width. */
export interface Cell {
  text: string;
  style?: (text: string) => string;
}

const GAP = "   ";
/** Columns are never cut below this (or their header's width, when smaller). */
const MIN_WIDTH = 6;

// Grapheme clusters: a flag or a family emoji is one symbol, cut whole or not at all. Made
// on first use: creating a segmenter loads ICU's break rules (~10 ms), which most commands,
// whose cells fit, never need.
let graphemes: Intl.Segmenter | undefined;

/**
 * The columns `text` takes in a terminal: 2 for CJK and emoji, 0 for combining marks,
 * else 1 (string-width), so a column after a name in Chinese or with an emoji still lines up.
 */
export function displayWidth(text: string): number {
  // Most cells are printable ASCII: one column per character, no tables to consult.
  return /^[\x20-\x7e]*$/.test(text) ? text.length : stringWidth(text);
}

/** Cuts `text` to `width` terminal columns, ending in `…` when something was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let kept = "";
  let used = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  for (const { segment } of graphemes.segment(text)) {
    const w = displayWidth(segment);
    if (used + w > width - 1) break;
    kept += segment;
    used += w;
  }
  return `${kept}…`;
}

/**
 * Column widths that fit `maxWidth`: the widest columns give up characters first, so
 * short columns (status, counts) stay whole and long ones (ids, JSON) are cut.
 */
export function fitWidths(natural: number[], headers: string[], maxWidth: number | undefined): number[] {
  const widths = [...natural];
  if (maxWidth === undefined) return widths;
  const floor = widths.map((w, i) => Math.min(w, Math.max(MIN_WIDTH, headers[i].length)));
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);
  while (total() > maxWidth) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) if (widths[i] > floor[i] && (widest < 0 || widths[i] > widths[widest])) widest = i;
    if (widest < 0) break;
    widths[widest] -= 1;
  }
  return widths;
}

/**
 * Lays out a borderless table as kubectl and gh do: a header line, then one line per row,
 * columns padded and separated by three spaces. With `maxWidth`, long cells are cut.
 * Widths are terminal columns (see displayWidth), never string lengths.
 */
export function layoutTable(headers: Cell[], rows: Cell[][], maxWidth?: number): string[] {
  const natural = headers.map((h, i) => Math.max(displayWidth(h.text), maxOf(rows.map((r) => displayWidth(r[i].text)))));
  const widths = fitWidths(natural, headers.map((h) => h.text), maxWidth);
  const line = (cells: Cell[]) =>
    cells
      .map((cell, i) => {
        const text = truncate(cell.text, widths[i]);
        const styled = cell.style ? cell.style(text) : text;
        return i === cells.length - 1 ? styled : styled + " ".repeat(Math.max(0, widths[i] - displayWidth(text)));
      })
      .join(GAP)
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

/** Escapes a value for a TSV cell: backslash, tab, newline and carriage return. */
export function tsvEscape(text: string): string {
  return text.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"));
}
