import type postgres from "postgres";
import { DdsError, errors } from "../../../contract/errors.js";
import type { OnMigrationProgress } from "../migration-progress.js";
import { schemaSql } from "../schema/ddl.js";
import { TABLES } from "../schema/tables.js";
import { MIGRATIONS } from "./migrations/index.js";
import { publishEngineEvent } from "../../events.js";

/** A fixed advisory-lock key: one migrator at a time, whichever node starts first. */
const MIGRATION_LOCK = 7_164_231_905;

/** How many migrations the database has applied (0 for an empty database). */
export async function appliedMigrations(client: postgres.Sql): Promise<number> {
  const [table] = await client.unsafe("SELECT to_regclass('dds_schema') IS NOT NULL AS present");
  if (!table.present) return 0;
  const [row] = await client.unsafe("SELECT version FROM dds_schema");
  return row ? Number(row.version) : 0;
}

/**
 * Checks the schema and applies the migrations the database lacks, in one transaction
 * under an advisory lock (two nodes starting together migrate once). A database written by
 * a newer ddsctl is refused; with `apply` false, so is an older one (`ddsctl migrate`).
 * Returns how many migrations were applied.
 */
export async function migratePostgres(client: postgres.Sql, location: string, apply: boolean, progress?: OnMigrationProgress): Promise<number> {
  const known = MIGRATIONS.length;
  const applied = await appliedMigrations(client);
  if (applied > known) {
    throw errors.schemaTooNew(location, applied, known);
  }
  if (applied === known) return 0;
  if (!apply) {
    throw new DdsError("unavailable", `database ${location} has schema version ${applied}, older than this ddsctl's ${known}; run ddsctl migrate first`);
  }
  const from = (await client.begin(async (tx) => {
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.unsafe("CREATE TABLE IF NOT EXISTS dds_schema (version INTEGER NOT NULL)");
    // Re-read under the lock: another node may have migrated meanwhile.
    const [row] = await tx.unsafe("SELECT version FROM dds_schema");
    const now = row ? Number(row.version) : 0;
    if (now > known) throw errors.schemaTooNew(location, now, known);
    if (now === 0) {
      // A new database: the declared schema at once, and the key that signs list cursors
      // (random per database, from PostgreSQL's strong random source, so every node signs alike).
      await tx.unsafe(schemaSql("postgres", TABLES));
      await tx.unsafe("INSERT INTO settings (name, value) VALUES ('cursor_key', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))");
    } else {
      for (let i = now; i < known; i++) {
        await MIGRATIONS[i].apply(tx, progress);
        if (MIGRATIONS[i].buildsLatest) break;
      }
    }
    if (row) await tx.unsafe("UPDATE dds_schema SET version = $1", [known]);
    else await tx.unsafe("INSERT INTO dds_schema (version) VALUES ($1)", [known]);
    return now;
  })) as number;
  if (from < known) publishEngineEvent({ event: "migration_applied", store: "postgres", location, from, to: known });
  return known - from;
}
