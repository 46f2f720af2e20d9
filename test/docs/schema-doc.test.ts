import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { schemaTablesMarkdown } from "../helpers/schema-doc.js";

const PAGE = join(import.meta.dirname, "../../docs/schema.md");
const START = "<!-- schema:start -->\n";
const END = "<!-- schema:end -->";

describe("docs/schema.md", () => {
  it("shows every table, column and index of the declaration (UPDATE_DOCS=1 rewrites it)", () => {
    const page = readFileSync(PAGE, "utf8");
    const from = page.indexOf(START) + START.length;
    const to = page.indexOf(END);
    expect(from).toBeGreaterThan(START.length - 1);
    const wanted = `${schemaTablesMarkdown()}\n`;
    if (process.env.UPDATE_DOCS === "1") writeFileSync(PAGE, page.slice(0, from) + wanted + page.slice(to));
    else expect(page.slice(from, to)).toBe(wanted);
  });
});
