import { DdsError, errors } from "../../contract/errors.js";

/**
 * How the store tells a database that went away from a statement that failed. These are
 * the codes of the PostgreSQL driver, of Node's sockets and SQLSTATEs; nothing here
 * imports a driver, so the HTTP layer can use the same judgement as a last resort.
 */

/** The driver's own codes and Node's socket errors: the connection failed or was lost. */
const LOST = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "TARGET_SESSION_ATTRS",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of a server that ended or refused the session: shutting down (57P01, 57P02),
 * starting up or recovering (57P03), a session killed for idling in a transaction (25P03).
 * Class 08 (connection exceptions) is matched by its prefix.
 */
const ENDED = new Set(["57P01", "57P02", "57P03", "25P03"]);

/** The server refused a new connection because it has too many (max_connections). */
export const TOO_MANY_CONNECTIONS = "53300";
/** A write reached a server that is read-only now (a standby, or a primary just demoted). */
export const READ_ONLY = "25006";
/** Refusals that pass with time: lock_timeout, a cancelled statement, a deadlock or serialization failure retried too often. */
const TRANSIENT = new Set(["55P03", "57014", "40P01", "40001"]);

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
};

/**
 * The SQLSTATE behind `err`: the driver's own, or that of the driver's error a 503 of
 * asDatabaseUnavailable was made from (its cause); "" when there is none.
 */
export function sqlStateOf(err: unknown): string {
  return err instanceof DdsError ? codeOf((err as { cause?: unknown }).cause) : codeOf(err);
}

/** True when `err` says the connection to the database failed, was lost or was ended by the server. */
export function isConnectionLost(err: unknown): boolean {
  const code = codeOf(err);
  return LOST.has(code) || ENDED.has(code) || code.startsWith("08");
}

/**
 * True when the server refused the login itself: a wrong or missing password (28P01), a
 * role or a pg_hba.conf entry it does not know (28000), a database that does not exist
 * (3D000), no CONNECT right on it (42501 "for database"). Waiting does not change these.
 */
export function isLoginRefused(err: unknown): boolean {
  const code = codeOf(err);
  if (code === "42501") return /for database/.test(err instanceof Error ? err.message : "");
  return code === "28P01" || code === "28000" || code === "3D000" || code === "SASL_SIGNATURE_MISMATCH";
}

/** True for a wrong or missing password (28P01), where where the password came from is worth saying. */
export function isPasswordRefused(err: unknown): boolean {
  return codeOf(err) === "28P01";
}

/** True when `err` is a write refused by a read-only server (25006). */
export function isReadOnlyServer(err: unknown): boolean {
  return codeOf(err) === READ_ONLY;
}

/** Why the database failed, in one line for the user (never a stack). */
export function reasonOf(err: unknown): string {
  const code = codeOf(err);
  if (code === TOO_MANY_CONNECTIONS) return "PostgreSQL refused a new connection: too many connections (max_connections)";
  if (code === READ_ONLY) return "the server is read-only (a standby, or a primary that was demoted)";
  const message = err instanceof Error ? err.message : String(err);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * The 503 a failure of the database deserves, or undefined when `err` is something else
 * (a bug, a constraint, a DdsError of the engine): a lost or refused connection, a
 * read-only server, and the refusals that pass with time. `where` names the database.
 */
export function asDatabaseUnavailable(err: unknown, where = "the database"): DdsError | undefined {
  if (err instanceof DdsError) return err.code === "database_unavailable" ? err : undefined;
  const code = codeOf(err);
  if (!(isConnectionLost(err) || code === READ_ONLY || code === TOO_MANY_CONNECTIONS || TRANSIENT.has(code))) return undefined;
  const e = errors.databaseUnavailable(`${where} cannot serve this request now: ${reasonOf(err)}; retry shortly`, TRANSIENT.has(code) ? 1 : 2);
  // The driver's error stays reachable for a caller that handles one of these itself (a late
  // pass commit's lock timeout). Not enumerable: a log of the 503 does not carry the driver's
  // error (its query, its parameters) along.
  Object.defineProperty(e, "cause", { value: err, enumerable: false, configurable: true, writable: true });
  return e;
}
