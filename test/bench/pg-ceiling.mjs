// The ceiling of an import into PostgreSQL: `COPY … FROM STDIN` of exactly the rows a
// `ddsctl import contributions` stored (its records, its contributions with their values
// keyed by field key and their final status, the contexts it made and marked, and its
// Idempotency-Keys with their answers), copied out of the import's own database and loaded
// by `psql` in one transaction into a fresh database of the project's schema (created by
// its migration, the shape's models active, as the import found it). No checks, no
// binding, no lookups: what an import could reach at best on these tables and indexes.
import { join } from "node:path";

/** The tables an import writes rows into, in the order they are loaded. */
export const IMPORT_TABLES = ["contexts", "records", "contributions", "idempotency_keys"];

/**
 * Copies the rows of IMPORT_TABLES out of `fromUrl` into files under `dir` (text format,
 * which `COPY FROM` reads back as the same values); returns the files by table.
 */
export async function dumpImportRows(timed, fromUrl, dir, tag) {
  const files = {};
  for (const table of IMPORT_TABLES) {
    files[table] = join(dir, `${tag}.${table}.copy`);
    await timed("psql", [fromUrl, "-q", "-c", `\\copy ${table} TO '${files[table]}'`]);
  }
  return files;
}

/**
 * Loads the dumped rows into `toUrl` (a fresh database prepared as the import's was), in
 * one transaction; the run's time is the ceiling. The contexts `prepare` may not have made
 * are part of what the import stored, so they are copied too.
 */
export function copyImportRows(timed, toUrl, files) {
  return timed("psql", [toUrl, "-q", "-1", ...IMPORT_TABLES.flatMap((t) => ["-c", `\\copy ${t} FROM '${files[t]}'`])]);
}

/** The bytes the tables an import writes take (heap, indexes and TOAST), and the whole database's. */
export async function importSize(sql) {
  const [row] = await sql.unsafe(
    `SELECT pg_database_size(current_database())::bigint AS database,
       (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind = 'r' AND n.nspname = 'public')::bigint AS tables`,
  );
  return { database: Number(row.database), tables: Number(row.tables) };
}
