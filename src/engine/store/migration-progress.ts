/** Where a long schema migration is, for a progress display. */
export interface MigrationProgress {
  /** The migration's name. */
  migration: string;
  /** What it is copying now (a table). */
  step: string;
  /** Rows of the whole migration done so far, and in all. */
  done: number;
  total: number;
}

/** Receives progress while a migration runs (called often: keep it cheap). */
export type OnMigrationProgress = (progress: MigrationProgress) => void;
