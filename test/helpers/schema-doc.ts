// docs/schema.md's tables, rendered from the declaration (src/engine/store/schema): a
// test keeps the page equal to it, so the page cannot drift from the schema.
import { columnType, defaultLiteral, indexesOn } from "../../src/engine/store/schema/ddl.js";
import { TABLES } from "../../src/engine/store/schema/tables.js";

const code = (s: string) => `\`${s}\``;

/** The markdown of every table: its columns on both engines, then its indexes with the query each serves. */
export function schemaTablesMarkdown(): string {
  const out: string[] = [];
  for (const t of TABLES) {
    out.push(`### ${t.name}`, "", t.doc, "");
    out.push("| column | SQLite | PostgreSQL | null | default, check, reference |", "|---|---|---|---|---|");
    for (const [name, col] of Object.entries(t.columns)) {
      const notes: string[] = [];
      if (col.kind === "key") notes.push("primary key");
      const d = defaultLiteral("postgres", col);
      if (d !== undefined) notes.push(`default ${code(d)}`);
      if (col.oneOf) notes.push(`one of ${col.oneOf.map(code).join(", ")}`);
      if (col.references) notes.push(`→ ${code(`${col.references}.id`)}`);
      const sqlite = col.kind === "key" ? "INTEGER PRIMARY KEY" : columnType("sqlite", col);
      const pg = col.kind === "key" ? "bigint identity" : columnType("postgres", col).replace(' COLLATE "C"', "");
      out.push(`| ${code(name)} | ${sqlite} | ${pg} | ${col.notNull || col.kind === "key" ? "no" : "yes"} | ${notes.join("; ")} |`);
    }
    if (t.primaryKey) out.push("", `Primary key: ${code(t.primaryKey.join(", "))}.`);
    const all = t.indexes;
    if (all.length > 0) {
      out.push("", "| index | on | serves |", "|---|---|---|");
      for (const i of all) {
        const on = `${i.unique ? "unique " : ""}(${i.columns.join(", ")})${i.where ? ` where ${i.where}` : ""}`;
        const only = indexesOn("sqlite", t).includes(i) ? (indexesOn("postgres", t).includes(i) ? "" : " (SQLite only)") : " (PostgreSQL only)";
        out.push(`| ${code(i.name)}${only} | ${code(on)} | ${i.serves} |`);
      }
    }
    out.push("");
  }
  return out.join("\n");
}
