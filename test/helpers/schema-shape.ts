// What a migrated database's schema is, read back from the database itself (columns, types,
// NOT NULL, defaults, CHECKs, primary keys, foreign keys, indexes with their WHERE), in one
// shape for both engines, and what the declaration (src/engine/store/schema) says it must be.
import type Database from "better-sqlite3";
import type postgres from "postgres";
import { columnType, defaultLiteral, indexesOn, type Engine } from "../../src/engine/store/schema/ddl.js";
import { TABLES } from "../../src/engine/store/schema/tables.js";

/** One table's shape; everything is text, so two shapes compare with toEqual. */
export interface TableShape {
  columns: Record<string, { type: string; notNull: boolean; default: string | null; primaryKey: boolean; check: string | null; references: string | null }>;
  primaryKey: string[];
  indexes: Record<string, { unique: boolean; columns: string[]; where: string | null }>;
}

/** Lower-cased, single-spaced, without quotes, casts and redundant parentheses: comparable SQL. */
const norm = (sql: string | null): string | null =>
  sql === null
    ? null
    : sql
        .toLowerCase()
        .replace(/::[a-z ]+/g, "")
        .replace(/["()]/g, "")
        .replace(/\s+/g, " ")
        .replace(/= any array\[(.*?)\]/g, "in $1")
        .trim();

/** The shape the declaration gives every table on `engine`. */
export function declaredShape(engine: Engine): Record<string, TableShape> {
  const out: Record<string, TableShape> = {};
  for (const t of TABLES) {
    const shape: TableShape = { columns: {}, primaryKey: t.primaryKey ? [...t.primaryKey] : [], indexes: {} };
    for (const [name, col] of Object.entries(t.columns)) {
      const key = col.kind === "key";
      if (key) shape.primaryKey = [name];
      shape.columns[name] = {
        type: key ? (engine === "sqlite" ? "integer" : "bigint") : columnType(engine, col).toLowerCase().replace(' collate "c"', ""),
        notNull: col.notNull || key,
        default: norm(defaultLiteral(engine, col) ?? null),
        primaryKey: key || (t.primaryKey?.includes(name) ?? false),
        check: col.oneOf ? norm(`${name} in (${col.oneOf.map((v) => `'${v}'`).join(", ")})`) : null,
        references: col.references ? `${col.references}.id` : null,
      };
    }
    for (const i of indexesOn(engine, t)) shape.indexes[i.name] = { unique: Boolean(i.unique), columns: [...i.columns], where: norm(i.where ?? null) };
    out[t.name] = shape;
  }
  return out;
}

/** The shape of every table of a SQLite database. */
export function sqliteShape(raw: Database.Database): Record<string, TableShape> {
  const out: Record<string, TableShape> = {};
  const tables = raw.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string; sql: string }[];
  for (const { name, sql } of tables) {
    const shape: TableShape = { columns: {}, primaryKey: [], indexes: {} };
    const cols = raw.prepare(`PRAGMA table_info(${name})`).all() as { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }[];
    const fks = raw.prepare(`PRAGMA foreign_key_list(${name})`).all() as { from: string; table: string; to: string }[];
    for (const c of [...cols].filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk)) shape.primaryKey.push(c.name);
    for (const c of cols) {
      // A column's CHECK, as the table's text spells it (SQLite keeps no parsed form).
      const check = new RegExp(`\\b${c.name} [^,]*?CHECK \\((.*?\\))\\)`, "i").exec(sql)?.[1] ?? null;
      const fk = fks.find((f) => f.from === c.name);
      shape.columns[c.name] = {
        type: c.type.toLowerCase(),
        notNull: c.notnull === 1 || (c.pk > 0 && c.type.toUpperCase() === "INTEGER" && shape.primaryKey.length === 1),
        default: norm(c.dflt_value),
        primaryKey: c.pk > 0,
        check: norm(check),
        references: fk ? `${fk.table}.${fk.to}` : null,
      };
    }
    const indexes = raw.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(name) as { name: string; sql: string }[];
    for (const i of indexes) {
      const columns = (raw.prepare(`PRAGMA index_info(${i.name})`).all() as { seqno: number; name: string }[]).sort((a, b) => a.seqno - b.seqno).map((c) => c.name);
      shape.indexes[i.name] = { unique: /^CREATE UNIQUE/i.test(i.sql), columns, where: norm(/ WHERE (.*)$/is.exec(i.sql)?.[1] ?? null) };
    }
    out[name] = shape;
  }
  return out;
}

/** The shape of every table of the current schema of a PostgreSQL database (`dds_schema` left out). */
export async function postgresShape(db: postgres.Sql): Promise<Record<string, TableShape>> {
  const out: Record<string, TableShape> = {};
  const cols = await db.unsafe<{ t: string; c: string; type: string; nullable: string; dflt: string | null }[]>(
    `SELECT table_name AS t, column_name AS c, data_type AS type, is_nullable AS nullable, column_default AS dflt FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name <> 'dds_schema' ORDER BY table_name, ordinal_position`,
  );
  for (const c of cols) {
    out[c.t] ??= { columns: {}, primaryKey: [], indexes: {} };
    const type = c.type.replace("timestamp with time zone", "timestamptz");
    // An identity column's default is the sequence; the declaration's key has none.
    out[c.t].columns[c.c] = { type, notNull: c.nullable === "NO", default: c.dflt?.startsWith("nextval(") ? null : norm(c.dflt), primaryKey: false, check: null, references: null };
  }
  const constraints = await db.unsafe<{ t: string; type: string; def: string; cols: string[] }[]>(
    `SELECT cl.relname AS t, co.contype AS type, pg_get_constraintdef(co.oid) AS def,
       ARRAY(SELECT a.attname FROM unnest(co.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = co.conrelid AND a.attnum = k.n ORDER BY k.o)::text[] AS cols
     FROM pg_constraint co JOIN pg_class cl ON cl.oid = co.conrelid JOIN pg_namespace ns ON ns.oid = cl.relnamespace
     WHERE ns.nspname = current_schema() AND cl.relname <> 'dds_schema'`,
  );
  for (const k of constraints) {
    const table = out[k.t];
    if (k.type === "p") {
      table.primaryKey = k.cols;
      for (const c of k.cols) table.columns[c].primaryKey = true;
    } else if (k.type === "c") table.columns[k.cols[0]].check = norm(/^CHECK \((.*)\)$/s.exec(k.def)?.[1] ?? k.def);
    else if (k.type === "f") table.columns[k.cols[0]].references = (/REFERENCES (\w+)\((\w+)\)/.exec(k.def) ?? []).slice(1).join(".");
  }
  const indexes = await db.unsafe<{ t: string; name: string; def: string }[]>(
    `SELECT tablename AS t, indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename <> 'dds_schema'
       AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE contype = 'p')`,
  );
  for (const i of indexes) {
    const m = /^CREATE (UNIQUE )?INDEX \S+ ON \S+ USING btree \((.*?)\)(?: WHERE (.*))?$/s.exec(i.def);
    if (!m) throw new Error(`unexpected index ${i.def}`);
    out[i.t].indexes[i.name] = { unique: Boolean(m[1]), columns: m[2].split(", "), where: norm(m[3] ?? null) };
  }
  return out;
}
