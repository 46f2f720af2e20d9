import type Database from "better-sqlite3";
import type { OnMigrationProgress } from "../../migration-progress.js";
import { sql as initial } from "./0001-initial.js";
import { sql as hardening } from "./0002-hardening.js";
import { sql as claimToken } from "./0003-claim-token.js";
import { sql as leanEvidenceIndexes } from "./0004-lean-evidence-indexes.js";
import { compactKeys } from "./0005-compact-keys.js";
import { migrationSql, SHARED_MIGRATIONS } from "../../schema/changes.js";

/** One step from a schema version to the next, run inside the migration's transaction. */
export interface Migration {
  name: string;
  apply(raw: Database.Database, progress?: OnMigrationProgress): void;
  /**
   * The migration builds the declared schema itself (the compact-keys rebuild creates every
   * table from schema/tables.ts): the shared migrations after it are then already in effect,
   * and a database it upgraded goes straight to the latest version.
   */
  buildsLatest?: boolean;
}

const text = (name: string, sql: string): Migration => ({ name, apply: (raw) => raw.exec(sql) });

/**
 * Every SQLite schema migration, in order. The database's `PRAGMA user_version` is the
 * number applied; a database with a higher number was written by a newer ddsctl. A new
 * database is created from the declaration (schema/tables.ts) at the latest version at
 * once; these bring a database written by an earlier release to it. Migrations live in
 * TypeScript modules so they ship inside `dist/` with no file copying.
 */
export const MIGRATIONS: readonly Migration[] = [
  text("0001-initial", initial),
  text("0002-hardening", hardening),
  text("0003-claim-token", claimToken),
  text("0004-lean-evidence-indexes", leanEvidenceIndexes),
  { name: "0005-compact-keys", apply: compactKeys, buildsLatest: true },
  // From here on each migration is written once for both engines (schema/changes.ts).
  ...SHARED_MIGRATIONS.map((m): Migration => ({ name: m.name, apply: (raw) => raw.exec(migrationSql("sqlite", m)) })),
];
