import { sql as initial } from "./0001-initial.js";
import { sql as hardening } from "./0002-hardening.js";
import { sql as claimToken } from "./0003-claim-token.js";
import { sql as leanEvidenceIndexes } from "./0004-lean-evidence-indexes.js";
import { sql as webhookRecovery } from "./0005-webhook-recovery.js";

/**
 * Every SQLite schema migration, in order. The database's `PRAGMA user_version` is the
 * number of migrations applied; a database with a higher number was written by a newer
 * ddsctl. Migrations live in TypeScript modules so they ship inside `dist/` with no file
 * copying.
 */
export const MIGRATIONS: readonly { name: string; sql: string }[] = [
  { name: "0001-initial", sql: initial },
  { name: "0002-hardening", sql: hardening },
  { name: "0003-claim-token", sql: claimToken },
  { name: "0004-lean-evidence-indexes", sql: leanEvidenceIndexes },
  { name: "0005-webhook-recovery", sql: webhookRecovery },
];
