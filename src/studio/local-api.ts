/**
 * The REST API of a local database, mounted in-process: the project's own app
 * (`src/server/app.ts`) over the same engine the CLI uses, with the studio's session
 * authenticator, plus the pipeline worker so evaluations recompute while the page is open
 * (a saved rule, evidence added from another terminal).
 */
import { getRequestListener } from "@hono/node-server";
import { existsSync } from "node:fs";
import { errors } from "../contract/errors.js";
import { openApp, type AppEnv, type WorkerOptions, isPostgresUrl } from "../engine/index.js";
import { createApp } from "../server/app.js";
import { createServerLogger } from "../server/server-log.js";
import type { Activity, LogFn } from "../server/types.js";
import { createSessionAuthenticator } from "./session.js";
import type { ApiBackend } from "./types.js";

/** Options of {@link createLocalApi}. */
export interface LocalApiOptions {
  /** The SQLite file (it must exist: a studio never creates a database) or a PostgreSQL URL. */
  db: string;
  workspace: string;
  sessionKey: string;
  /** The environment the application reads (the CLI's). */
  env: AppEnv;
  /** Background failures (pipeline errors); never request data. */
  log: LogFn;
  worker?: WorkerOptions;
}

/** Opens the database and builds the API over it. */
export async function createLocalApi(options: LocalApiOptions): Promise<ApiBackend> {
  if (options.db !== ":memory:" && !isPostgresUrl(options.db) && !existsSync(options.db)) {
    throw errors.usage(`no database at ${options.db}: create one with ddsctl demo (the mortgage example) or ddsctl init, or pick another with --local <db>`);
  }
  const app = await openApp({ location: options.db, env: options.env });
  const activity: Activity = { lastWriteAt: 0, closing: false };
  // One engine for the session: the local workspace, acting as the local user (as the CLI does).
  const engines = { get: () => app.engine({ workspace: options.workspace }) };
  const api = createApp({ app, activity, auth: createSessionAuthenticator(options.sessionKey, options.workspace), engines });
  const listener = getRequestListener(api.fetch);
  // The pipeline only: webhooks are delivered by `serve`, and keys are purged there.
  await app.start({ activity, worker: options.worker ?? {}, webhooks: false, purgeEveryMs: false, log: options.log ? createServerLogger({ write: options.log }) : undefined });
  return {
    describe: `local ${app.store.location}`,
    handle: (req, res) => void listener(req, res),
    async close() {
      activity.closing = true;
      await app.close();
    },
  };
}
