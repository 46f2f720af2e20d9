/**
 * The REST API of a local database, mounted in-process: the project's own app
 * (`src/server/app.ts`) over the same engine the CLI uses, with the studio's session
 * authenticator, plus the pipeline worker so evaluations recompute while the page is open
 * (a saved rule, evidence added from another terminal).
 */
import { getRequestListener } from "@hono/node-server";
import { existsSync } from "node:fs";
import { errors } from "../contract/errors.js";
import { createLocalEngine, type LocalEngine } from "../engine/local-engine.js";
import { isPostgresUrl, openDatabase } from "../engine/store/db.js";
import type { Store } from "../engine/store/store.js";
import { createApp } from "../server/app.js";
import { createServerLogger } from "../server/server-log.js";
import type { Activity, LogFn } from "../server/types.js";
import { startWorker, type WorkerOptions } from "../server/worker.js";
import { createSessionAuthenticator } from "./session.js";
import type { ApiBackend } from "./types.js";

/** Options of {@link createLocalApi}. */
export interface LocalApiOptions {
  /** The SQLite file (it must exist: a studio never creates a database) or a PostgreSQL URL. */
  db: string;
  workspace: string;
  sessionKey: string;
  /** Background failures (pipeline errors); never request data. */
  log: LogFn;
  worker?: WorkerOptions;
}

/** Opens the database and builds the API over it. */
export async function createLocalApi(options: LocalApiOptions): Promise<ApiBackend> {
  if (options.db !== ":memory:" && !isPostgresUrl(options.db) && !existsSync(options.db)) {
    throw errors.usage(`no database at ${options.db}: create one with ddsctl demo (the mortgage example) or ddsctl init, or pick another with --local <db>`);
  }
  const store: Store = await openDatabase(options.db);
  const activity: Activity = { lastWriteAt: 0, closing: false };
  // One engine for the session: the local workspace, acting as the local user (as the CLI does).
  let engine: LocalEngine | undefined;
  const engines = { get: () => (engine ??= createLocalEngine({ db: store, workspace: options.workspace })) };
  const app = createApp({ store, activity, auth: createSessionAuthenticator(options.sessionKey, options.workspace), engines });
  const listener = getRequestListener(app.fetch);
  const worker = startWorker(store, activity, options.worker, options.log ? createServerLogger({ write: options.log }) : undefined);
  return {
    describe: `local ${store.location}`,
    handle: (req, res) => void listener(req, res),
    async close() {
      activity.closing = true;
      await worker.stop();
      await store.close();
    },
  };
}
