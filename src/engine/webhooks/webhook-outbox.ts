import type { WebhookEvent } from "../../contract/schemas/index.js";
import { newId } from "../../util/ids.js";
import type { PassEvent } from "../pipeline/worker.js";
import type { Sql } from "../store/sql.js";
import { createDeliveryRepo } from "../store/webhook-repo.js";
import { buildPayload, type WebhookEventData } from "./webhook-payload.js";

/** Options of the outbox (tests pin the clock). */
export interface WebhookOutboxOptions {
  now?: () => number;
}

/**
 * The durable outbox: turns engine changes into `webhook_deliveries` rows, one per
 * subscribed webhook of the event's workspace. Every method takes the transaction of the
 * change that caused the event, so the event exists exactly when the change does (a
 * rolled-back change leaves no delivery behind).
 */
export function createWebhookOutbox(options: WebhookOutboxOptions = {}) {
  const now = options.now ?? Date.now;
  /**
   * The subscribers of each workspace and event type, read once per transaction: a commit of
   * many passes, or a bulk request that turns many contexts stale, emits many events of a
   * few types. Kept per transaction object only, so never older than what it can see.
   */
  const read = new WeakMap<Sql, Map<string, ReturnType<ReturnType<typeof createDeliveryRepo>["subscribers"]>>>();
  const subscribers = (tx: Sql, workspace: string, type: WebhookEvent) => {
    let known = read.get(tx);
    if (!known) read.set(tx, (known = new Map()));
    const key = `${workspace}\u0000${type}`;
    let hooks = known.get(key);
    if (!hooks) known.set(key, (hooks = createDeliveryRepo(tx).subscribers(workspace, type)));
    return hooks;
  };

  const emit = async <T extends WebhookEvent>(tx: Sql, type: T, data: WebhookEventData[T]): Promise<number> => {
    const deliveries = createDeliveryRepo(tx);
    const hooks = await subscribers(tx, data.workspace, type);
    if (hooks.length === 0) return 0;
    const at = now();
    const createdAt = new Date(at).toISOString();
    // One payload per event, shared by every subscriber; the message id is per delivery
    // so each endpoint can deduplicate its own retries by `webhook-id`.
    const payload = JSON.stringify(buildPayload(type, data, createdAt));
    for (const hook of hooks) {
      // A disabled webhook's event is kept, failed, so `recover` can send it once it is enabled.
      await deliveries.enqueue({ id: newId(), webhookKey: hook.key, messageId: newId(), eventType: type, payload, createdAt, dueAt: at, disabled: hook.disabled });
    }
    return hooks.length;
  };

  return {
    emit,
    /**
     * Whether any webhook of the workspace subscribes to `type`, read once per transaction
     * (the same read `emit` makes): a caller that starts it early pays no round trip later.
     */
    async subscribed(tx: Sql, workspace: string, type: WebhookEvent): Promise<boolean> {
      return (await subscribers(tx, workspace, type)).length > 0;
    },
    /** `context.stale` for each context that turned from resolved to stale. */
    async contextsStale(tx: Sql, turned: { contextId: string; workspace: string }[]): Promise<void> {
      for (const t of turned) await emit(tx, "context.stale", { contextId: t.contextId, workspace: t.workspace, freshness: "stale" });
    },
    /** `context.status_changed` for a lifecycle move. */
    async contextStatusChanged(tx: Sql, workspace: string, context: { id: string; status: string }, from: string): Promise<void> {
      await emit(tx, "context.status_changed", { contextId: context.id, workspace, from, to: context.status });
    },
    /**
     * `evaluation.changed` per flipped outcome (whatever the pass's final freshness: the
     * flipped evaluation is committed either way), then `context.resolved` when the pass
     * left the context resolved. Meant as PipelineOptions.onPass.
     */
    async passCommitted(tx: Sql, event: PassEvent): Promise<void> {
      for (const { ruleId, outcome, evaluationId, ruleName } of event.changedOutcomes) {
        await emit(tx, "evaluation.changed", {
          contextId: event.contextId,
          workspace: event.workspace,
          evaluationId,
          ruleId,
          ruleName,
          outcome,
          previousOutcome: !outcome,
        });
      }
      if (event.freshness === "resolved") {
        await emit(tx, "context.resolved", { contextId: event.contextId, workspace: event.workspace, freshness: "resolved", resolvedAt: event.resolvedAt });
      }
    },
  };
}

/** The outbox type. */
export type WebhookOutbox = ReturnType<typeof createWebhookOutbox>;
