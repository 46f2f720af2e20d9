import postgres from "postgres";
import type { PgTarget } from "./pg-target.js";

/** What a client of the driver is for: its size and timeouts, callbacks, and the session settings ddsctl needs. */
export interface ClientOptions {
  max: number;
  /** Seconds to make a connection when neither the URL nor PGCONNECT_TIMEOUT says (a probe's is fixed: `fixedConnectTimeout`). */
  connectTimeoutS?: number;
  /** A probe's bound, whatever the URL says. */
  fixedConnectTimeoutS?: number;
  /** Settings a session starts with unless PGOPTIONS or the URL say otherwise (idle_in_transaction_session_timeout). */
  defaults?: Record<string, string>;
  /** Settings nothing overrides (the time zone the type parsers read times in). */
  fixed?: Record<string, string>;
  /** Anything else the driver takes (idle_timeout, types, transform, onnotify…). */
  driver?: Record<string, unknown>;
}

/**
 * Opens a client of the `postgres` driver on `target`: the one place ddsctl makes one, so
 * every connection (the pool, the probe, the notification listener, the key marks) is made
 * with the same host, user, password lookup, TLS and settings. Every value is passed, so the
 * driver reads nothing of `process.env` itself.
 */
export function connectPg(target: PgTarget, options: ClientOptions): postgres.Sql {
  const settings = { ...options.defaults, ...target.settings, application_name: target.applicationName, ...options.fixed };
  const connectTimeout = options.fixedConnectTimeoutS ?? target.connectTimeoutS ?? options.connectTimeoutS ?? 10;
  const all = {
    host: target.hosts,
    port: target.ports,
    ...(target.socket ? { path: target.socket } : {}),
    user: target.user,
    database: target.database,
    // Called by the (patched) driver for each connection with the host it is for.
    pass: (host?: string, port?: number) => target.password(host, port),
    ssl: false,
    target_session_attrs: target.targetSessionAttrs ?? null,
    onnotice: () => undefined,
    ...target.driverOptions,
    ...options.driver,
    max: options.max,
    connect_timeout: connectTimeout,
    connection: settings,
  };
  return postgres(all as unknown as postgres.Options<Record<string, never>>);
}
