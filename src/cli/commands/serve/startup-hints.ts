/**
 * What `serve` says at start-up when it would otherwise fail in silence: a database with no
 * API token answers 401 to every request under /v1, and PostgreSQL without DDS_SECRET_KEY
 * refuses every webhook (its signing secret cannot be sealed). Each hint says how to fix it.
 */
import { isPostgresUrl } from "../../../engine/store/location.js";
import type { Env } from "../../core/io.js";

/** How to make a DDS_SECRET_KEY: 32 random bytes in base64 (docs/security.md). */
export const MAKE_SECRET_KEY = `node -p "require('node:crypto').randomBytes(32).toString('base64')"`;

/** The flag that names this database again, for a command to paste (a URL's password is not printed). */
function databaseFlag(db: string): string {
  return isPostgresUrl(db) ? "--database <the URL this serve runs on>" : `--local ${db}`;
}

/** The start-up warnings for a server on `db` holding `activeTokens` unrevoked tokens. */
export function startupHints(db: string, activeTokens: number, env: Env): string[] {
  const hints: string[] = [];
  if (activeTokens === 0) {
    hints.push(
      `this database has no API token yet: every request under /v1 will be answered 401. Make one (printed once) with: ddsctl ${databaseFlag(db)} tokens create --scope admin --name admin`,
    );
  }
  if (isPostgresUrl(db) && !env.DDS_SECRET_KEY) {
    hints.push(
      `DDS_SECRET_KEY is not set: webhooks are refused (503) until it is, the same on every node. Make a key with: ${MAKE_SECRET_KEY} (or openssl rand -base64 32)`,
    );
  }
  return hints;
}
