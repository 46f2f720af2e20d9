import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import { parseBody } from "../../contract/parse.js";
import type { Page, Webhook, WebhookDelivery, WebhookRecoverResult } from "../../contract/schemas/index.js";
import { requestSchemas, type RequestSchemas } from "../request-schemas.js";
import { newId } from "../../util/ids.js";
import { nowIso } from "../../util/time.js";
import type { EngineContext, Scope } from "../engine-context.js";
import type { WebhookRow } from "../store/webhook-repo.js";
import { assertTransition, parseTargetStatus } from "../transitions.js";
import { newWebhookSecret } from "./webhook-secret.js";
import { toApiDelivery, toApiWebhook } from "./webhook-view.js";

/**
 * The create body, narrowed to http(s): `z.url()` alone admits `ftp:`, `file:` or
 * `javascript:`, none of which the dispatcher can (or should) POST to.
 */
const createBody = ({ WebhookCreate }: RequestSchemas) => WebhookCreate.superRefine((body, issue) => {
  // zod still runs refinements after a non-fatal `z.url()` issue; that one is reported already.
  if (typeof body.url !== "string" || !URL.canParse(body.url)) return;
  const protocol = new URL(body.url).protocol;
  if (protocol !== "http:" && protocol !== "https:") {
    issue.addIssue({ code: "custom", path: ["url"], message: `must be an http or https URL, not ${protocol}` });
  }
});

let webhookCreateBody: ReturnType<typeof createBody> | undefined;

/** Webhook operations of the service, for the engine context's workspace. */
export function createWebhookService(ctx: EngineContext) {
  const requireWebhook = async (s: Scope, webhookId: string): Promise<WebhookRow> => {
    const row = await s.webhooks.get(String(webhookId));
    if (!row) throw errors.notFound("webhook", webhookId);
    return row;
  };
  /** Redelivery needs an enabled webhook: a disabled one would only fail the delivery again. */
  const requireEnabled = async (s: Scope, webhookId: string): Promise<WebhookRow> => {
    const row = await requireWebhook(s, webhookId);
    if (row.disabledAt !== null) {
      throw errors.conflict("webhook_disabled", `webhook ${row.id} is disabled (${row.disabledReason ?? "no reason recorded"}); enable it first: ddsctl webhooks enable ${row.id}`);
    }
    return row;
  };

  return {
    /** Creates a subscription; the answer is the only one that shows the secret. */
    async createWebhook(body: unknown): Promise<Webhook> {
      const input = parseBody((webhookCreateBody ??= createBody(await requestSchemas())), body);
      const row: WebhookRow = {
        id: newId(),
        workspace: ctx.workspace,
        url: input.url,
        events: [...new Set(input.events)],
        description: input.description ?? "",
        secret: newWebhookSecret(),
        createdAt: nowIso(),
        failingSince: null,
        disabledAt: null,
        disabledReason: null,
      };
      // Stored encrypted (AES-256-GCM, key outside the database), sealed inside the write
      // transaction so a key rotation in another process cannot slip in between.
      const box = ctx.secrets;
      await ctx.tx((s) => s.webhooks.insert({ ...row, secret: box.seal(row.secret, "webhook-secret") }));
      return toApiWebhook(row, true);
    },

    async listWebhooks(query?: ListQuery): Promise<Page<Webhook>> {
      const page = await ctx.webhooks.list(query ?? {});
      return { data: page.rows.map((r) => toApiWebhook(r)), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },

    async getWebhook(webhookId: string): Promise<Webhook> {
      return toApiWebhook(await requireWebhook(ctx, webhookId));
    },

    async deleteWebhook(webhookId: string): Promise<void> {
      await ctx.tx(async (s) => s.webhooks.softDelete((await requireWebhook(s, webhookId)).id, nowIso()));
    },

    async setWebhookStatus(webhookId: string, target: string): Promise<Webhook> {
      const to = parseTargetStatus("webhook", target);
      return ctx.tx(async (s) => {
        const row = await requireWebhook(s, webhookId);
        assertTransition("webhook", row.disabledAt === null ? "enabled" : "disabled", to);
        if (to === "disabled") await s.webhooks.disable(row.id, nowIso(), "disabled by request");
        else await s.webhooks.enable(row.id);
        return toApiWebhook((await s.webhooks.get(row.id))!);
      });
    },

    async listWebhookDeliveries(webhookId: string, query?: ListQuery): Promise<Page<WebhookDelivery>> {
      const hook = await requireWebhook(ctx, webhookId);
      const page = await ctx.webhooks.listDeliveries(hook.id, query ?? {});
      return { data: page.rows.map(toApiDelivery), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },

    async redeliverWebhookDelivery(webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
      return ctx.tx(async (s) => {
        const hook = await requireEnabled(s, webhookId);
        const found = await s.webhooks.getDelivery(hook.id, String(deliveryId));
        if (!found) throw errors.notFound("delivery", deliveryId);
        await s.webhooks.redeliver(hook.id, found.id, Date.now());
        return toApiDelivery((await s.webhooks.getDelivery(hook.id, found.id))!);
      });
    },

    async recoverWebhookDeliveries(webhookId: string, body: unknown): Promise<WebhookRecoverResult> {
      const input = parseBody((await requestSchemas()).WebhookRecover, body);
      // Stored times are UTC with milliseconds; an offset in the request is normalised to compare alike.
      const since = new Date(input.since).toISOString();
      const until = input.until ? new Date(input.until).toISOString() : null;
      return ctx.tx(async (s) => {
        const hook = await requireEnabled(s, webhookId);
        const recovered = await s.webhooks.recover(hook.id, since, until, Date.now());
        return { webhookId: hook.id, since, until, recovered };
      });
    },
  };
}
