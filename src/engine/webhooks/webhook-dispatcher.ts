import { STATUS_CODES } from "node:http";
import { secretBoxFor } from "../secrets/secret-box.js";
import type { Store } from "../store/store.js";
import { createDeliveryRepo, type ClaimedDelivery } from "../store/webhook-repo.js";
import { DEFAULT_BACKOFF, retryDelayMs, type BackoffOptions } from "./webhook-backoff.js";
import { signedHeaders } from "./webhook-sign.js";

/** Options of the webhook dispatcher. */
export interface WebhookDispatcherOptions {
  /** The HTTP client (default: Node's global fetch). */
  fetch?: typeof fetch;
  /** Clock in epoch milliseconds (default Date.now); drives due times and signatures. */
  now?: () => number;
  /** Attempts before a delivery is marked failed (default 8). */
  maxAttempts?: number;
  /** Back-off after the first failure; doubles per attempt (default 500 ms). */
  baseDelayMs?: number;
  /** Back-off cap (default 1 h). */
  maxDelayMs?: number;
  /** Jitter fraction (default 0.1) and its randomness (default Math.random). */
  jitter?: number;
  random?: () => number;
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
  /** How long a claim keeps other dispatchers off a row (default 60 s; > timeoutMs). */
  leaseMs?: number;
  /** Deliveries claimed per tick (default 50). */
  batchSize?: number;
  /**
   * Pause between ticks once start() runs and nothing was due (default 1 s): retries come
   * due with time. A delivery enqueued anywhere (on PostgreSQL, on any node) wakes the
   * loop at once.
   */
  intervalMs?: number;
  /** Told about a tick that threw (a locked or closed database); the loop goes on. */
  onError?: (err: unknown) => void;
  /** Told how each attempt ended once it is recorded (the server's metrics). */
  onAttempt?: (outcome: AttemptOutcome) => void;
}

/** How one delivery attempt ended: delivered, to be retried, or failed for good. */
export type AttemptOutcome = "delivered" | "retrying" | "failed";

/** What one tick did. */
export interface TickResult {
  claimed: number;
  delivered: number;
  retrying: number;
  failed: number;
}

type Outcome = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

const MAX_ERROR_LENGTH = 500;

/** Why a fetch threw, in words an operator can act on (`connect ECONNREFUSED …`). */
function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) return `timed out after ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err.cause as { message?: string } | undefined) : undefined;
  const text = cause?.message ?? (err instanceof Error ? err.message : String(err));
  return text.slice(0, MAX_ERROR_LENGTH);
}

/**
 * Delivers the outbox: each tick claims due pending deliveries (atomically, with a lease,
 * so several processes may run dispatchers on one database), POSTs each payload signed
 * per Standard Webhooks, and settles it: `delivered` on 2xx, otherwise a retry with
 * exponential back-off, or `failed` after `maxAttempts`. Delivery is at least once and
 * unordered; receivers deduplicate on `webhook-id`.
 */
export function createWebhookDispatcher(store: Store, options: WebhookDispatcherOptions = {}) {
  const repo = createDeliveryRepo(store.sql);
  const box = secretBoxFor(store);
  const send = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const maxAttempts = options.maxAttempts ?? 8;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const leaseMs = Math.max(options.leaseMs ?? 60_000, timeoutMs + 5_000);
  const batchSize = options.batchSize ?? 50;
  const intervalMs = options.intervalMs ?? 1_000;
  const backoff: BackoffOptions = {
    baseDelayMs: options.baseDelayMs ?? DEFAULT_BACKOFF.baseDelayMs,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs,
    jitter: options.jitter ?? DEFAULT_BACKOFF.jitter,
    random: options.random ?? DEFAULT_BACKOFF.random,
  };

  const post = async (d: ClaimedDelivery & { url: string; secret: string }): Promise<Outcome> => {
    try {
      const res = await send(d.url, {
        method: "POST",
        // Stored encrypted; a key that cannot open it fails this attempt with a reason.
        headers: signedHeaders(box.open(d.secret, "webhook-secret"), d.messageId, new Date(now()), d.payload),
        body: d.payload,
        // A redirect is not a delivery: following it could re-POST the event elsewhere.
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      // The body is not needed; cancelling frees the connection for reuse.
      await res.body?.cancel().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status };
      // HTTP/2 and some servers send no reason phrase; the standard one reads better.
      const reason = res.statusText || STATUS_CODES[res.status];
      return { ok: false, statusCode: res.status, error: `HTTP ${res.status}${reason ? ` ${reason}` : ""}` };
    } catch (err) {
      return { ok: false, statusCode: null, error: describeFailure(err, timeoutMs) };
    }
  };

  const attempt = async (d: ClaimedDelivery): Promise<AttemptOutcome> => {
    const outcome = await settleAttempt(d);
    options.onAttempt?.(outcome);
    return outcome;
  };

  const settleAttempt = async (d: ClaimedDelivery): Promise<AttemptOutcome> => {
    const outcome: Outcome =
      d.url === null || d.secret === null ? { ok: false, statusCode: null, error: "webhook deleted" } : await post({ ...d, url: d.url, secret: d.secret });
    const at = now();
    if (outcome.ok) {
      await repo.settle(d, { status: "delivered", statusCode: outcome.statusCode, error: null, nextAttemptAt: null, deliveredAt: new Date(at).toISOString() });
      return "delivered";
    }
    const final = d.attempts >= maxAttempts || d.url === null;
    await repo.settle(d, {
      status: final ? "failed" : "pending",
      statusCode: outcome.statusCode,
      error: outcome.error,
      nextAttemptAt: final ? null : at + retryDelayMs(d.attempts, backoff),
      deliveredAt: null,
    });
    return final ? "failed" : "retrying";
  };

  /** Claims one batch of due deliveries and attempts each once, concurrently. */
  const tick = async (): Promise<TickResult> => {
    const at = now();
    const claimed = await repo.claimDue(at, at + leaseMs, batchSize);
    const results = await Promise.all(claimed.map(attempt));
    const count = (r: string) => results.filter((x) => x === r).length;
    return { claimed: claimed.length, delivered: count("delivered"), retrying: count("retrying"), failed: count("failed") };
  };

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let started = false;
  let unsubscribe: (() => void) | undefined;
  let again = false;
  // Bumped by stop(): a tick still finishing from before a restart must not spawn a
  // second loop beside the new one.
  let generation = 0;

  const loop = (gen: number) => {
    running = tick().then(
      (r) => r.claimed,
      (err: unknown) => {
        options.onError?.(err);
        return 0;
      },
    );
    void running.then((claimed) => {
      running = undefined;
      if (!started || gen !== generation) return;
      // A full batch, or an enqueue during the tick, means more may be due: go again at
      // once instead of idling.
      const now = claimed === batchSize || again;
      again = false;
      timer = setTimeout(() => loop(gen), now ? 0 : intervalMs);
      // The dispatcher alone must not keep a process alive; the server's socket does.
      timer.unref();
    });
  };

  return {
    tick,
    /** Runs tick() continuously: back to back while batches are full, else every intervalMs. */
    start(): void {
      if (started) return;
      started = true;
      const gen = generation;
      unsubscribe = store.on("outbox", () => {
        if (!started || gen !== generation) return;
        if (running) {
          again = true;
          return;
        }
        if (timer) clearTimeout(timer);
        timer = undefined;
        loop(gen);
      });
      loop(gen);
    },
    /** Stops the loop and waits for the in-flight tick (bounded by the request timeout). */
    async stop(): Promise<void> {
      started = false;
      generation++;
      unsubscribe?.();
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}

/** The dispatcher type. */
export type WebhookDispatcher = ReturnType<typeof createWebhookDispatcher>;
