import type { EventLog } from "./app-types.js";

/**
 * A failure of background work as one `error` line of `event` (never a stack), on the log
 * current when it happens. A refusal of a database that is away is not logged one by one:
 * the store reports the outage once, and its end.
 */
export function reportFailure(log: () => EventLog | undefined, event: string): (err: unknown) => void {
  return (err) => {
    if ((err as { code?: unknown } | null)?.code === "database_unavailable") return;
    log()?.event(event, { error: err instanceof Error ? err.message : String(err) }, "error");
  };
}
