import type postgres from "postgres";
import type { OnMigrationProgress } from "../../migration-progress.js";
import { sql as initial } from "./0001-initial.js";
import { compactKeys } from "./0002-compact-keys.js";
import { migrationSql, SHARED_MIGRATIONS } from "../../schema/changes.js";

/** One step from a schema version to the next, run inside the migration's transaction. */
export interface Migration {
  name: string;
  apply(tx: postgres.TransactionSql, progress?: OnMigrationProgress): Promise<unknown>;
  /**
   * The migration builds the declared schema itself (the compact-keys rebuild creates every
   * table from schema/tables.ts): the shared migrations after it are then already in effect,
   * and a database it upgraded goes straight to the latest version.
   */
  buildsLatest?: boolean;
}

/**
 * Every PostgreSQL schema migration, in order. Table `dds_schema` holds how many are
 * applied; a database with more was written by a newer ddsctl and is refused. A new
 * database is created from the declaration (schema/tables.ts) at the latest version at
 * once; these bring a database written by an earlier release to it.
 */
export const MIGRATIONS: readonly Migration[] = [
  { name: "0001-initial", apply: (tx) => tx.unsafe(initial) },
  { name: "0002-compact-keys", apply: compactKeys, buildsLatest: true },
  // From here on each migration is written once for both engines (schema/changes.ts).
  ...SHARED_MIGRATIONS.map((m): Migration => ({ name: m.name, apply: (tx) => tx.unsafe(migrationSql("postgres", m)) })),
];
