import { formatDuration } from "../../util/duration.js";
import { secretBoxFor, type SecretBox } from "../secrets/secret-box.js";
import type { Store } from "../store/store.js";
import { createDeliveryRepo, DISABLED_ERROR, type ClaimedDelivery } from "../store/webhook-repo.js";
import { fetchSender, httpSender, postDelivery, type PostOutcome } from "./webhook-post.js";
import { createSettler } from "./webhook-settler.js";
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_SCHEDULE, DEFAULT_TIMEOUT_MS, maxAttempts, retryDelayMs, type RetrySchedule } from "./webhook-schedule.js";

/** Options of the webhook dispatcher. */
export interface WebhookDispatcherOptions {
  /** An HTTP client to send with instead of node:http(s) (tests record or fake the sends). */
  fetch?: typeof fetch;
  /** Clock in epoch milliseconds (default Date.now); drives due times and signatures. */
  now?: () => number;
  /** Waits between attempts (default 5s, 1m, 5m, 30m, 2h, 5h, 10h, 10h); attempts = waits + 1. */
  retryDelaysMs?: readonly number[];
  /** Jitter fraction, either way (default 0.1), and its randomness (default Math.random). */
  jitter?: number;
  random?: () => number;
  /** How long a receiver has to answer an attempt (default 10 s). */
  timeoutMs?: number;
  /** A webhook whose every attempt failed for this long is disabled (default 5 days; 0: never). */
  disableAfterMs?: number;
  /** How long a claim keeps other dispatchers off a row (default 60 s; at least timeoutMs + 5 s). */
  leaseMs?: number;
  /** Deliveries claimed by one statement (default 50). */
  batchSize?: number;
  /** Attempts in flight at once, once start() runs (default 64). */
  concurrency?: number;
  /**
   * Longest sleep with nothing due (default: 1 s on SQLite, where another process may write
   * the file unannounced; 30 s on PostgreSQL, in case a notification was lost). A due time
   * is never waited for by polling: the loop sleeps until exactly then.
   */
  idleMs?: number;
  /** Pause after a failed claim (a locked or unreachable database) before the next (default 1 s). */
  errorBackoffMs?: number;
  /** The keys webhook secrets are opened with (the application's; default: the key file beside a SQLite database). */
  secrets?: SecretBox;
  /** Told about a failure of the loop (a locked or closed database); the loop goes on. */
  onError?: (err: unknown) => void;
  /** Told how each attempt ended once it is recorded, and how long the receiver took to answer it, in seconds (the server's metrics). */
  onAttempt?: (outcome: AttemptOutcome, seconds: number) => void;
}

/** What one tick did. */
export interface TickResult {
  claimed: number;
  delivered: number;
  retrying: number;
  failed: number;
}

/** How one delivery attempt ended: delivered, to be retried, or failed for good. */
export type AttemptOutcome = "delivered" | "retrying" | "failed";
type AttemptResult = AttemptOutcome;

/** How soon to look again at due rows another node was claiming. */
const RECHECK_MS = 25;

/**
 * Delivers the outbox: claims due pending deliveries (atomically, with a lease, so several
 * processes may run dispatchers on one database), POSTs each payload signed per Standard
 * Webhooks, and settles it: `delivered` on 2xx, else a retry after the schedule's next
 * wait, or `failed` once the schedule is spent. A webhook whose attempts all failed for
 * `disableAfterMs` is disabled. Delivery is at least once and unordered; receivers
 * deduplicate on `webhook-id`.
 *
 * Started, it keeps up to `concurrency` attempts in flight and sleeps until the earliest
 * due delivery (a retry is sent when due, not at the next poll), or until an enqueue
 * anywhere (a notification on PostgreSQL) wakes it.
 */
export function createWebhookDispatcher(store: Store, options: WebhookDispatcherOptions = {}) {
  const repo = createDeliveryRepo(store.sql);
  const settler = createSettler(store);
  const box = options.secrets ?? secretBoxFor(store, {});
  const sender = options.fetch ? fetchSender(options.fetch) : httpSender();
  const now = options.now ?? Date.now;
  const schedule: RetrySchedule = {
    delaysMs: options.retryDelaysMs ?? DEFAULT_SCHEDULE.delaysMs,
    jitter: options.jitter ?? DEFAULT_SCHEDULE.jitter,
    random: options.random ?? DEFAULT_SCHEDULE.random,
  };
  const attemptsAllowed = maxAttempts(schedule);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const disableAfterMs = options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS;
  const leaseMs = Math.max(options.leaseMs ?? 60_000, timeoutMs + 5_000);
  const batchSize = options.batchSize ?? 50;
  const concurrency = options.concurrency ?? 64;
  const idleMs = options.idleMs ?? (store.hearsOtherProcesses ? 30_000 : 1_000);
  const errorBackoffMs = options.errorBackoffMs ?? 1_000;
  // With every slot taken, claim again once this many are free: one claim per batch, not
  // one per finished attempt.
  const refill = Math.max(1, Math.floor(Math.min(batchSize, concurrency) / 2));
  const opened = new Map<string, string>();

  const post = (d: ClaimedDelivery): Promise<PostOutcome> => {
    if (d.hook === null) return Promise.resolve({ ok: false, statusCode: null, error: "webhook deleted" });
    if (d.hook.disabled) return Promise.resolve({ ok: false, statusCode: null, error: DISABLED_ERROR });
    let secret = opened.get(d.hook.secret);
    if (secret === undefined) {
      try {
        // Stored encrypted; a key that cannot open it fails this attempt with a reason.
        secret = box.open(d.hook.secret, "webhook-secret");
      } catch (err) {
        return Promise.resolve({ ok: false, statusCode: null, error: (err as Error).message });
      }
      // Keyed by the sealed text, so a rotated or replaced secret is opened afresh.
      if (opened.size >= 1000) opened.clear();
      opened.set(d.hook.secret, secret);
    }
    return postDelivery(sender, { url: d.hook.url, secret, messageId: d.messageId, payload: d.payload, at: new Date(now()), timeoutMs });
  };

  /** Keeps the webhook's failing clock, and disables it once it has failed long enough. */
  const recordHealth = async (d: ClaimedDelivery, ok: boolean, at: number, error: string | null): Promise<void> => {
    // A deleted or disabled webhook was not tried: its health is unchanged.
    if (d.hook === null || d.hook.disabled) return;
    const since = d.hook.failingSince;
    if (ok) {
      if (since !== null) await repo.succeeding(d.webhookId);
      return;
    }
    if (since === null) return repo.failing(d.webhookId, at);
    if (disableAfterMs > 0 && at - since >= disableAfterMs) {
      const reason = `every attempt failed for ${formatDuration(at - since)} (since ${new Date(since).toISOString()}); last: ${error}`;
      await repo.disableFailing(d.webhookId, new Date(at).toISOString(), reason, at - disableAfterMs);
    }
  };

  const attempt = async (d: ClaimedDelivery): Promise<AttemptResult> => {
    const { result, seconds } = await settleAttempt(d);
    options.onAttempt?.(result, seconds);
    return result;
  };

  const settleAttempt = async (d: ClaimedDelivery): Promise<{ result: AttemptResult; seconds: number }> => {
    const started = performance.now();
    const outcome = await post(d);
    const seconds = (performance.now() - started) / 1000;
    return { result: await recordAttempt(d, outcome), seconds };
  };

  const recordAttempt = async (d: ClaimedDelivery, outcome: Awaited<ReturnType<typeof post>>): Promise<AttemptResult> => {
    const at = now();
    if (outcome.ok) {
      await settler.settle(d, { status: "delivered", statusCode: outcome.statusCode, error: null, nextAttemptAt: null, deliveredAt: new Date(at).toISOString() });
      await recordHealth(d, true, at, null);
      return "delivered";
    }
    const untried = d.hook === null || d.hook.disabled;
    const wait = untried || d.attempts >= attemptsAllowed ? undefined : retryDelayMs(d.attempts, schedule);
    const nextAttemptAt = wait === undefined ? null : at + wait;
    await settler.settle(d, { status: nextAttemptAt === null ? "failed" : "pending", statusCode: outcome.statusCode, error: outcome.error, nextAttemptAt, deliveredAt: null });
    await recordHealth(d, false, at, outcome.error);
    // The loop's timer may be set for this claim's lease end: look again for the earliest due time.
    if (nextAttemptAt !== null) wake();
    return nextAttemptAt === null ? "failed" : "retrying";
  };

  /** Claims one batch of due deliveries and attempts each once, concurrently (tests drive it by hand). */
  const tick = async (): Promise<TickResult> => {
    const at = now();
    const claimed = await repo.claimDue(at, at + leaseMs, batchSize);
    const results = await Promise.all(claimed.map(attempt));
    const count = (r: AttemptResult) => results.filter((x) => x === r).length;
    return { claimed: claimed.length, delivered: count("delivered"), retrying: count("retrying"), failed: count("failed") };
  };

  // The running loop: `pumping` claims while slots are free; attempts run beside it; a
  // single timer wakes it at the earliest due time.
  let started = false;
  let generation = 0;
  let pumping: Promise<void> | undefined;
  let again = false;
  let starved = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let unsubscribe: (() => void) | undefined;
  const inFlight = new Set<Promise<unknown>>();

  /** Sets the loop's one timer for `at`, replacing the one set before. */
  function wakeAt(at: number): void {
    if (!started) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      timerAt = Infinity;
      wake();
    }, Math.max(0, at - now()));
    // The dispatcher alone must not keep a process alive; the server's socket does.
    timer.unref();
  }

  function wake(): void {
    if (!started) return;
    if (pumping) {
      again = true;
      return;
    }
    again = false;
    const gen = generation;
    pumping = pump(gen).finally(() => {
      pumping = undefined;
      if (again && gen === generation) wake();
    });
  }

  const launch = (d: ClaimedDelivery): void => {
    const running: Promise<unknown> = attempt(d)
      .catch((err: unknown) => options.onError?.(err))
      .finally(() => {
        inFlight.delete(running);
        // The loop stopped claiming for want of free slots: enough are free now.
        if (starved && (concurrency - inFlight.size >= refill || inFlight.size === 0)) {
          starved = false;
          wake();
        }
      });
    inFlight.add(running);
  };

  const pump = async (gen: number): Promise<void> => {
    try {
      for (;;) {
        if (!started || gen !== generation) return;
        const free = concurrency - inFlight.size;
        if (free < refill && inFlight.size > 0) {
          starved = true;
          return;
        }
        const at = now();
        // A read first: a wake with nothing due costs no write (on PostgreSQL, no commit
        // and no NOTIFY), and the loop sleeps until exactly the earliest due time.
        const next = await repo.nextDue();
        if (next === undefined || next > at) return wakeAt(next === undefined ? at + idleMs : Math.min(at + idleMs, next));
        const claimed = await repo.claimDue(at, at + leaseMs, Math.min(free, batchSize));
        claimed.forEach(launch);
        // Due, yet nothing claimed: another node is claiming those rows right now. Look again shortly.
        if (claimed.length === 0) return wakeAt(now() + RECHECK_MS);
      }
    } catch (err) {
      options.onError?.(err);
      wakeAt(now() + errorBackoffMs);
    }
  };

  return {
    tick,
    /** When the running loop wakes next (epoch ms; undefined while claiming or stopped). */
    nextWakeAt: (): number | undefined => (timerAt === Infinity ? undefined : timerAt),
    /** Runs the loop in the background: claims whatever is due, then sleeps until the next due time. */
    start(): void {
      if (started) return;
      started = true;
      unsubscribe = store.on("outbox", wake);
      wake();
    },
    /** Stops the loop and waits for the attempts in flight (each bounded by the time-out). */
    async stop(): Promise<void> {
      started = false;
      generation++;
      unsubscribe?.();
      if (timer) clearTimeout(timer);
      timer = undefined;
      timerAt = Infinity;
      await pumping;
      await Promise.all([...inFlight]);
      sender.close();
    },
  };
}

/** The dispatcher type. */
export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
