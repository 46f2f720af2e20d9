import { isDdsError } from "../../../contract/errors.js";
import { asDatabaseUnavailable } from "../../../engine/store/db-errors.js";
import { backoffMs, RECONNECT_BACKOFF } from "../../../util/backoff.js";

/** While waiting, the reason is repeated this often even when it does not change. */
const REMIND_MS = 30_000;

/**
 * Opens the database, waiting for it while it is unreachable (`database_unavailable`): a
 * node started before its database (a whole stack coming up, a database restarting) says
 * on stderr what it waits for and serves once it comes. Any other failure (a schema newer
 * than this ddsctl, a wrong password) ends the wait at once. Resolves undefined when
 * `stop` comes first (SIGINT, SIGTERM).
 */
export async function openWhenReachable<T extends { close(): Promise<void> }>(open: () => Promise<T>, say: (line: string) => void, stop: Promise<unknown>): Promise<T | undefined> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  let said = "";
  let saidAt = 0;
  for (let attempt = 1; !stopped; attempt++) {
    try {
      const opened = await open();
      if (said) say("the database is reachable: starting");
      if (!stopped) return opened;
      await opened.close();
      return undefined;
    } catch (err) {
      if (!isDdsError(err) || err.code !== "database_unavailable") throw err;
      if (err.message !== said || Date.now() - saidAt > REMIND_MS) {
        say(`waiting for the database: ${err.message} (retrying; Ctrl-C to stop)`);
        said = err.message;
        saidAt = Date.now();
      }
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([stop, new Promise((r) => (timer = setTimeout(r, backoffMs(attempt, RECONNECT_BACKOFF))))]);
    clearTimeout(timer);
  }
  return undefined;
}

/**
 * A last guard for a server: a promise rejected by a lost database connection that nobody
 * awaited any more (a statement of a connection dropped with its pool) is logged, not
 * allowed to end the process as Node does by default. Any other unhandled rejection is a
 * bug and still ends it.
 */
export function strayDatabaseErrors(log: (error: string) => void): { dispose(): void } {
  const onRejection = (reason: unknown) => {
    if (!asDatabaseUnavailable(reason)) throw reason;
    log(reason instanceof Error ? reason.message : String(reason));
  };
  process.on("unhandledRejection", onRejection);
  return { dispose: () => void process.off("unhandledRejection", onRejection) };
}
