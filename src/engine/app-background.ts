import type { Activity, AppEnv, EventLog } from "./app-types.js";
import { reportFailure } from "./report-failure.js";
import { startWorker, type RunningWorker, type WorkerOptions } from "./pipeline/pipeline-runner.js";
import type { SecretBox } from "./secrets/secret-box.js";
import { sealClearSecrets } from "./secrets/secret-rotation.js";
import { createIdempotencyRepo } from "./store/idempotency-repo.js";
import type { Store } from "./store/store.js";
import { createWebhookDispatcher, type WebhookDispatcherOptions } from "./webhooks/webhook-dispatcher.js";

/** What runs in the background of an open application, and where it reports. */
export interface BackgroundOptions {
  /** Shared with the request side: passes wait for a quiet moment after the last write. */
  activity: Activity;
  /** Pipeline worker timing, or false to run none. */
  worker?: WorkerOptions | false;
  /** Webhook dispatcher settings, or false to deliver nothing (events stay in the outbox). */
  webhooks?: WebhookDispatcherOptions | false;
  /** How often expired idempotency keys are purged (default 10 min), or false for never. */
  purgeEveryMs?: number | false;
  /** Seal the secrets an earlier release stored in clear text (serve does; default false). */
  sealSecrets?: boolean;
  /** Where failures of the background work are reported (never a stack, never a secret). */
  log?: EventLog;
}

/** Background work started by an application. */
export interface Background {
  /** Stops the purge, then the worker (after its current pass), then the dispatcher. */
  stop(): Promise<void>;
}

/** Starts the application's background work over `store` (see App.start); resolves once secrets are sealed. */
export async function startBackground(store: Store, keys: { secrets: SecretBox; env: AppEnv }, options: BackgroundOptions): Promise<Background> {
  const { log } = options;
  const report = (event: string) => reportFailure(() => log, event);
  if (options.sealSecrets) {
    // A database from before secrets were encrypted: seal what it kept in clear text.
    await sealClearSecrets(store, keys.env).catch(report("secret_sealing_error"));
  }
  const worker: RunningWorker | undefined = options.worker === false ? undefined : startWorker(store, options.activity, options.worker, log);
  const dispatcher =
    options.webhooks === false || options.webhooks === undefined ? undefined : createWebhookDispatcher(store, { onError: report("webhook_error"), secrets: keys.secrets, ...options.webhooks });
  dispatcher?.start();
  let purge: NodeJS.Timeout | undefined;
  if (options.purgeEveryMs !== false) {
    const idempotency = createIdempotencyRepo(store);
    // A busy database only delays the purge; expired keys are ignored on lookup anyway.
    const purgeExpired = () => void idempotency.purge(Date.now()).catch(report("idempotency_purge_error"));
    purge = setInterval(purgeExpired, options.purgeEveryMs ?? 10 * 60_000);
    purge.unref();
    purgeExpired();
  }
  let stopping: Promise<void> | undefined;
  return {
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(purge);
        await worker?.stop();
        await dispatcher?.stop();
      })()),
  };
}
