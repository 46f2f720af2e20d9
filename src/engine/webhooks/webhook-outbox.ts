import type { WebhookEvent } from "../../contract/schemas/index.js";
import { newId } from "../../util/ids.js";
import type { PassEvent } from "../pipeline/worker.js";
import type { Store } from "../store/db.js";
import { statements } from "../store/statements.js";
import { createDeliveryRepo } from "../store/webhook-repo.js";
import { buildPayload, type WebhookEventData } from "./webhook-payload.js";

/** Options of the outbox (tests pin the clock). */
export interface WebhookOutboxOptions {
  now?: () => number;
}

/**
 * The durable outbox: turns engine changes into `webhook_deliveries` rows, one per
 * subscribed webhook of the event's workspace. Every method must run inside the
 * transaction of the change that caused the event, so the event exists exactly when the
 * change does (a rolled-back change leaves no delivery behind).
 */
export function createWebhookOutbox(store: Store, options: WebhookOutboxOptions = {}) {
  const deliveries = createDeliveryRepo(store);
  const q = statements(store.raw);
  const now = options.now ?? Date.now;

  const emit = <T extends WebhookEvent>(type: T, data: WebhookEventData[T]): number => {
    const hooks = deliveries.subscribers(data.workspace, type);
    if (hooks.length === 0) return 0;
    const at = now();
    const createdAt = new Date(at).toISOString();
    // One payload per event, shared by every subscriber; the message id is per delivery
    // so each endpoint can deduplicate its own retries by `webhook-id`.
    const payload = JSON.stringify(buildPayload(type, data, createdAt));
    for (const hook of hooks) {
      deliveries.enqueue({ id: newId(), workspace: data.workspace, webhookId: hook.id, messageId: `msg_${newId()}`, eventType: type, payload, createdAt, dueAt: at });
    }
    return hooks.length;
  };

  return {
    emit,
    /** `context.stale` for each context that turned from resolved to stale. */
    contextsStale(turned: { contextId: string; workspace: string }[]): void {
      for (const t of turned) emit("context.stale", { contextId: t.contextId, workspace: t.workspace, freshness: "stale" });
    },
    /** `context.status_changed` for a lifecycle move. */
    contextStatusChanged(workspace: string, context: { id: string; status: string }, from: string): void {
      emit("context.status_changed", { contextId: context.id, workspace, from, to: context.status });
    },
    /**
     * `evaluation.changed` per flipped outcome (whatever the pass's final freshness: the
     * flipped evaluation is committed either way), then `context.resolved` when the pass
     * left the context resolved. Meant as PipelineOptions.onPass.
     */
    passCommitted(event: PassEvent): void {
      // No pluck(): it would flip the shared cached statement for every other caller.
      const rule = q("SELECT name FROM rules WHERE id = ?");
      const evaluation = q("SELECT id FROM evaluations WHERE context_id = ? AND rule_id = ?");
      for (const c of event.changedOutcomes) {
        emit("evaluation.changed", {
          contextId: event.contextId,
          workspace: event.workspace,
          evaluationId: (evaluation.get(event.contextId, c.ruleId) as { id: string } | undefined)?.id ?? null,
          ruleId: c.ruleId,
          ruleName: (rule.get(c.ruleId) as { name: string } | undefined)?.name ?? null,
          outcome: c.outcome,
          previousOutcome: !c.outcome,
        });
      }
      if (event.freshness === "resolved") {
        const row = q("SELECT resolved_at AS resolvedAt FROM contexts WHERE id = ?").get(event.contextId) as { resolvedAt: string | null } | undefined;
        emit("context.resolved", { contextId: event.contextId, workspace: event.workspace, freshness: "resolved", resolvedAt: row?.resolvedAt ?? null });
      }
    },
  };
}

/** The outbox type. */
export type WebhookOutbox = ReturnType<typeof createWebhookOutbox>;
