/** A PostgreSQL server this run started, and databases made on it. */
export interface PgCluster {
  port: number;
  /** The folder of its Unix socket (`.s.PGSQL.<port>`). */
  socketDir: string;
  /** Its data folder (owned by the user the server runs as). */
  dataDir: string;
  /** The URL of a database of this server. */
  url(database: string): string;
  /** A new, empty database on the cluster; its URL. */
  createDatabase(): Promise<string>;
  /** A statement as the superuser on the `postgres` database (reconnects after a halt). */
  query(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** `pg_ctl stop -m <mode>` (default fast), keeping the files: `resume` starts it again. */
  halt(mode?: "smart" | "fast" | "immediate"): Promise<void>;
  /** `pg_ctl start` after a halt. */
  resume(): Promise<void>;
  /** `pg_ctl restart -m <mode>` (default fast). */
  restart(mode?: "smart" | "fast" | "immediate"): Promise<void>;
  /** `pg_ctl promote` (waits until it takes writes): a standby becomes a primary. */
  promote(): Promise<void>;
  /** A streaming standby of this server (`pg_basebackup -R`), started on a port of its own. */
  startReplica(): Promise<PgCluster>;
  /** The server's log so far. */
  log(): string;
  /** Stops the server (immediately) and removes its files. */
  stop(): Promise<void>;
}

/**
 * Starts a throwaway PostgreSQL server from the machine's binaries (see pg-cluster.mjs);
 * `settings` are extra `name=value` server settings, `superuser` the role initdb makes
 * (default `dds`), `password` the superuser's: with it every role logs in by SCRAM-SHA-256
 * password authentication, without it by trust. URLs never carry the password.
 */
export function startPostgres(options?: { settings?: string[]; superuser?: string; password?: string }): Promise<PgCluster>;

/** Where the machine's PostgreSQL server binaries are. */
export function binDir(): string;

/** A TCP port of 127.0.0.1 free right now. */
export function freePort(): Promise<number>;

/** A free port for a PostgreSQL server, held across this run's processes until `releasePort` (see pg-cluster.mjs). */
export function serverPort(): Promise<number>;

/** Gives back a port taken with `serverPort`. */
export function releasePort(port: number): void;

/** The uid/gid the servers run as when this process is root (the `postgres` user); undefined otherwise. */
export function serverUser(): { uid: number; gid: number } | undefined;
