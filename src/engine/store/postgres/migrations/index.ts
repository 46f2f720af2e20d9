import { sql as initial } from "./0001-initial.js";
import { sql as webhookRecovery } from "./0002-webhook-recovery.js";

/**
 * Every PostgreSQL schema migration, in order. Table `dds_schema` holds how many are
 * applied; a database with more was written by a newer ddsctl and is refused. Kept apart
 * from SQLite's: each store's schema moves at its own pace (a PostgreSQL-only index, a
 * SQLite-only rebuild).
 */
export const MIGRATIONS: readonly { name: string; sql: string }[] = [
  { name: "0001-initial", sql: initial },
  { name: "0002-webhook-recovery", sql: webhookRecovery },
];
