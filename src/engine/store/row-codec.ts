import { getTableColumns, getTableName, type Table } from "drizzle-orm";

/**
 * Column names and value encodings from drizzle's table definitions (schema.ts), so a
 * repository can write `UPDATE … SET` from a partial row in the engine's shape: JSON
 * columns are stringified, booleans become 0/1, as both stores keep them.
 */
export function setClause(table: Table, set: Record<string, unknown>): { sql: string; params: unknown[] } {
  const columns = getTableColumns(table);
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const [key, value] of Object.entries(set)) {
    if (value === undefined) continue;
    const column = columns[key];
    if (!column) throw new Error(`no column for ${key}`);
    parts.push(`${column.name} = ?`);
    params.push(value === null ? null : column.mapToDriverValue(value));
  }
  return { sql: parts.join(", "), params };
}

/** An INSERT of one row in the engine's shape, encoded as {@link setClause} does. */
export function insertRow(table: Table, row: Record<string, unknown>): { sql: string; params: unknown[] } {
  const columns = getTableColumns(table);
  const names: string[] = [];
  const params: unknown[] = [];
  for (const [key, value] of Object.entries(row)) {
    const column = columns[key];
    if (!column || value === undefined) continue;
    names.push(column.name);
    params.push(value === null ? null : column.mapToDriverValue(value));
  }
  return { sql: `INSERT INTO ${getTableName(table)} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`, params };
}

/** Decodes a row read with the table's SQL column names into the engine's shape. */
export function decodeRow<T>(table: Table, row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = row[column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as T;
}
