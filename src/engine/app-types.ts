/**
 * The environment the application reads (the secret key, pool settings): what its caller
 * hands over, the CLI's injected environment, never `process.env` read behind its back.
 */
export type AppEnv = Readonly<Record<string, string | undefined>>;

/** Severity of an event line. */
export type EventLevel = "info" | "warn" | "error";

/** Where the application's background work reports its events (serve's logger fits). */
export interface EventLog {
  event(name: string, fields?: Record<string, unknown>, level?: EventLevel, message?: string): void;
}

/** What the request side and the background work share. */
export interface Activity {
  /** When the last write request was answered (ms since the epoch). */
  lastWriteAt: number;
  /** Set once shutdown began: responses ask clients to close their connection. */
  closing: boolean;
}
