/** A PostgreSQL server this run started, and databases made on it. */
export interface PgCluster {
  port: number;
  /** A new, empty database on the cluster; its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast) and removes its files. */
  stop(): Promise<void>;
}

/** Starts a throwaway PostgreSQL server from the machine's binaries (see pg-cluster.mjs); `settings` are extra `name=value` server settings. */
export function startPostgres(options?: { settings?: string[] }): Promise<PgCluster>;

/** A TCP port of 127.0.0.1 free right now. */
export function freePort(): Promise<number>;
