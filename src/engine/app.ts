import type { AppEnv, EventLog } from "./app-types.js";
import type { Background, BackgroundOptions } from "./app-background.js";
import { reportFailure } from "./report-failure.js";
import { createAuthenticator, type Authenticator, type Principal } from "./auth/index.js";
import { createLocalEngine, type LocalEngine } from "./local-engine.js";
import type { PipelineOptions } from "./pipeline/worker.js";
import { secretBoxFor, type SecretBox } from "./secrets/secret-box.js";
import { openDatabase, type OpenDatabaseOptions } from "./store/db.js";
import { createProcessOwner, type ProcessOwner } from "./store/sqlite/owner-lock.js";
import { createIdempotencyRepo, type IdempotencyRepo } from "./store/idempotency-repo.js";
import { createPipelineRepo } from "./store/pipeline-repo.js";
import type { Store } from "./store/store.js";
import { createDeliveryRepo } from "./store/webhook-repo.js";

export type { Activity, AppEnv, EventLog } from "./app-types.js";
export type { Background, BackgroundOptions } from "./app-background.js";
export type { PipelineObserver } from "./pipeline/worker.js";
export type { WorkerOptions } from "./pipeline/pipeline-runner.js";
export type { WebhookDispatcherOptions } from "./webhooks/index.js";

/** Options of {@link openApp}. */
export interface OpenAppOptions extends Omit<OpenDatabaseOptions, "env"> {
  /** A SQLite file (created on first write), `:memory:`, or a `postgres://` URL. */
  location: string;
  /** What the application reads of its environment (`DDS_SECRET_KEY`, `DDS_DB_POOL`, `PGAPPNAME`). */
  env: AppEnv;
  /** The pipeline settings of every engine (the CLI groups a drain's passes). */
  pipeline?: PipelineOptions;
}

/** Who an engine acts as: the workspace it sees and the actor written to `createdBy`. */
export interface Actor {
  workspace: string;
  /** Default: `local:<os user>`. */
  actor?: string;
}

/**
 * The application: one open store and everything that lives as long as it. Every way
 * ddsctl runs takes one (`serve`, `studio`, an in-process command, the tests) and builds
 * nothing of its own beside it.
 */
export interface App {
  readonly store: Store;
  readonly env: AppEnv;
  /** Secrets sealed and opened with the keys `env` (or the key file beside a SQLite database) names. */
  readonly secrets: SecretBox;
  /** Bearer tokens checked against the store (one cache for every listener). */
  readonly auth: Authenticator;
  /**
   * SQLite: this process's owner lock (marks on running Idempotency-Keys name it, so a
   * retry after a crash takes over at once). PostgreSQL needs none (its marks are session locks).
   */
  readonly owner: ProcessOwner | undefined;
  /** Idempotency-Keys of the HTTP API: marks, stored answers, the purge. */
  readonly idempotency: IdempotencyRepo;
  /** What waits, across every workspace: contexts to resolve, deliveries to send (for metrics). */
  backlog(): Promise<Backlog>;
  /** The engine acting as `who`; one per workspace and actor, kept while the app is open. */
  engine(who: Actor): LocalEngine;
  /** The engine of an authenticated token: its workspace, acting as `token:<tokenId>`. */
  engineFor(principal: Principal): LocalEngine;
  /**
   * Starts the work that runs while the app is open: the pipeline worker, the webhook
   * dispatcher, the purge of expired idempotency keys, the sealing of secrets an earlier
   * release kept in clear text. Stopped by `close()` at the latest.
   */
  start(options: BackgroundOptions): Promise<Background>;
  /** Stops the background work, releases the owner lock, closes the store (when the app opened it). */
  close(): Promise<void>;
}

/** What waits for the background work. */
export interface Backlog {
  contexts: { stale: number; computing: number };
  /** When the active context that has waited longest turned stale (epoch ms), or null when none waits. */
  oldestStaleSince: number | null;
  outbox: { pending: number; due: number };
}

/** Engines kept at most; beyond, the least recently created is dropped (they are cheap to make again). */
const MAX_ENGINES = 512;

/** Opens the database at `location` (migrating it as needed) and the application over it. */
export async function openApp(options: OpenAppOptions): Promise<App> {
  const store = await openDatabase(options.location, { ...options, env: options.env });
  return appOver(store, { env: options.env, pipeline: options.pipeline, ownsStore: true });
}

/**
 * The application over a store already open (a test that prepared one); the store is
 * closed with the app only when `ownsStore` says so.
 */
export function appOver(store: Store, options: { env: AppEnv; pipeline?: PipelineOptions; ownsStore?: boolean }): App {
  const { env } = options;
  const secrets = secretBoxFor(store, env);
  const engines = new Map<string, LocalEngine>();
  // Where background failures go: the log the latest start() was given.
  let log: EventLog | undefined;
  let auth: Authenticator | undefined;
  let idempotency: IdempotencyRepo | undefined;
  let owner: ProcessOwner | undefined | null = null;
  const running = new Set<Background>();
  const engine = (key: string, workspace: string, actor: string | undefined): LocalEngine => {
    let made = engines.get(key);
    if (!made) {
      made = createLocalEngine({ db: store, workspace, actor, secrets, pipeline: options.pipeline });
      if (engines.size >= MAX_ENGINES) engines.delete(engines.keys().next().value as string);
      engines.set(key, made);
    }
    return made;
  };
  return {
    store,
    env,
    secrets,
    get auth() {
      // Touching a token's last use is bookkeeping: a failure is logged, never the request's.
      return (auth ??= createAuthenticator(store, { onError: reportFailure(() => log, "token_touch_error") }));
    },
    get idempotency() {
      return (idempotency ??= createIdempotencyRepo(store));
    },
    async backlog() {
      const [{ oldestStaleSince, ...contexts }, outbox] = await Promise.all([createPipelineRepo(store.sql).backlog(), createDeliveryRepo(store.sql).backlog(Date.now())]);
      return { contexts, oldestStaleSince, outbox };
    },
    get owner() {
      if (owner === null) owner = store.file !== undefined ? createProcessOwner(store.file) : undefined;
      return owner;
    },
    engine: (who) => engine(`${who.workspace}\n${who.actor ?? ""}`, who.workspace, who.actor),
    engineFor: (principal) => engine(`token:${principal.tokenId}`, principal.workspace, `token:${principal.tokenId}`),
    async start(background) {
      log = background.log ?? log;
      // Lazy: the worker and the webhook dispatcher (with node:http and node:https) are for
      // serve, studio and wait; an in-process command that only reads never loads them.
      const { startBackground } = await import("./app-background.js");
      const started = await startBackground(store, { secrets, env }, background);
      running.add(started);
      return {
        stop: async () => {
          running.delete(started);
          await started.stop();
        },
      };
    },
    async close() {
      for (const background of [...running]) await background.stop();
      running.clear();
      if (owner) owner.release();
      owner = null;
      if (options.ownsStore) await store.close();
    },
  };
}
