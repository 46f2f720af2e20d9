import { WEBHOOK_EVENTS } from "../contract/constants.js";
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_SCHEDULE_TEXT, DEFAULT_TIMEOUT_MS } from "../engine/index.js";
import { formatDuration } from "../util/duration.js";

/** Headers every answer, a 401, a replay and a 201 carry: shared components. */
export const HEADER_COMPONENTS = {
  XRequestId: {
    description: "the request's id: the client's own X-Request-Id when it is 1-128 characters of [A-Za-z0-9._:-], else a new one",
    schema: { type: "string" },
  },
  WWWAuthenticate: { description: 'the auth challenge: Bearer realm="ddsctl"', schema: { type: "string" } },
  IdempotentReplayed: {
    description: "present (true) when this is the stored answer of an earlier request with the same Idempotency-Key",
    schema: { type: "string", enum: ["true"] },
  },
  Location: { description: "the address of what was created: /v1/<collection>/<id>", schema: { type: "string" } },
  RetryAfter: { description: "seconds after which the same request (with the same Idempotency-Key) may succeed", schema: { type: "integer", minimum: 0 } },
  RateLimitPolicy: {
    description:
      'the rate limits this request is charged to (IETF draft RateLimit header fields): `"workspace";q=<units>;w=<seconds>, "token";q=<units>;w=<seconds>`, each a budget of q cost units refilled at q per w seconds; a limit that is off is left out',
    schema: { type: "string" },
  },
  RateLimit: {
    description: 'what is left of each limit after this request: `"workspace";r=<units left>;t=<seconds until full>, "token";r=…;t=…` (on PostgreSQL as this node knows it)',
    schema: { type: "string" },
  },
};

/** A `$ref` to a shared header. */
export const headerRef = (name: keyof typeof HEADER_COMPONENTS) => ({ $ref: `#/components/headers/${name}` });

const context = { contextId: { type: "string", format: "uuid" }, workspace: { type: "string" } };

/** The `data` of each event, as JSON Schema. */
const DATA: Record<(typeof WEBHOOK_EVENTS)[number], Record<string, unknown>> = {
  "context.stale": { properties: { ...context, freshness: { const: "stale" } }, required: ["contextId", "workspace", "freshness"] },
  "context.resolved": {
    properties: { ...context, freshness: { const: "resolved" }, resolvedAt: { type: ["string", "null"], format: "date-time" } },
    required: ["contextId", "workspace", "freshness", "resolvedAt"],
  },
  "context.status_changed": {
    properties: { ...context, from: { type: "string", enum: ["active", "completed", "archived"] }, to: { type: "string", enum: ["active", "completed", "archived"] } },
    required: ["contextId", "workspace", "from", "to"],
  },
  "evaluation.changed": {
    properties: {
      ...context,
      evaluationId: { type: ["string", "null"], format: "uuid" },
      ruleId: { type: "string", format: "uuid" },
      ruleName: { type: ["string", "null"] },
      outcome: { type: "boolean" },
      previousOutcome: { type: "boolean" },
    },
    required: ["contextId", "workspace", "evaluationId", "ruleId", "ruleName", "outcome", "previousOutcome"],
  },
};

const WHEN: Record<(typeof WEBHOOK_EVENTS)[number], string> = {
  "context.stale": "a resolved context became stale (evidence, a record change, a link removal, a model, rule or type change)",
  "context.resolved": "a pipeline pass committed and left the context resolved",
  "context.status_changed": "a context moved through its lifecycle",
  "evaluation.changed": "a rule's outcome on a context flipped (a first evaluation is not a flip)",
};

const SIGNATURE_HEADERS = [
  { name: "webhook-id", in: "header", required: true, description: "the message id, stable across retries: deduplicate on it", schema: { type: "string" } },
  { name: "webhook-timestamp", in: "header", required: true, description: "when this attempt was signed, in Unix seconds", schema: { type: "string" } },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description: "v1,<base64 HMAC-SHA256 of '<webhook-id>.<webhook-timestamp>.<body>' under the subscription's secret> (Standard Webhooks)",
    schema: { type: "string" },
  },
];

/** What a receiver's answer does, with the defaults of `ddsctl serve` (docs/webhooks.md). */
const RETRIES =
  `delivered. Anything else, or no answer within the time-out (${formatDuration(DEFAULT_TIMEOUT_MS)} by default), is retried with the same webhook-id ` +
  `after ${DEFAULT_SCHEDULE_TEXT.split(",").join(", ")} (each ±10 %; serve --webhook-schedule changes it), then the delivery is failed; ` +
  `a webhook whose every attempt failed for ${formatDuration(DEFAULT_DISABLE_AFTER_MS)} is disabled. Failed deliveries can be sent again (redeliver, recover).`;

/**
 * The `webhooks` section: one POST per event type, with its body `{type, timestamp, data}`
 * and the Standard Webhooks signature headers. A 2xx answer settles the delivery; anything
 * else is retried with back-off.
 */
export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event,
      {
        post: {
          operationId: `on_${event.replace(/[.]/g, "_")}`,
          summary: WHEN[event],
          parameters: SIGNATURE_HEADERS,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: {
                    type: { const: event },
                    timestamp: { type: "string", format: "date-time", description: "when the event happened; stable across retries" },
                    data: { type: "object", ...DATA[event] },
                  },
                  required: ["type", "timestamp", "data"],
                },
              },
            },
          },
          responses: { "2XX": { description: RETRIES } },
        },
      },
    ]),
  );
}

/** The paths outside `/v1` resources: the health check and the document itself. */
export function servicePaths(): Record<string, unknown> {
  const ok = (description: string, schema: Record<string, unknown>, type = "application/json") => ({
    description,
    headers: { "X-Request-Id": headerRef("XRequestId") },
    content: { [type]: { schema } },
  });
  return {
    "/healthz": {
      get: {
        operationId: "health",
        tags: ["service"],
        summary: "liveness: answers 200 while the server runs, whatever its database does (no token)",
        security: [],
        responses: {
          200: ok("running; `database` is what the node knows of its database without asking it", {
            type: "object",
            properties: { status: { const: "ok" }, database: { enum: ["reachable", "unreachable"] } },
            required: ["status"],
          }),
        },
      },
    },
    "/readyz": {
      get: {
        operationId: "ready",
        tags: ["service"],
        summary: "readiness: 200 while the database answers (within 2 s), 503 when it does not or the server is stopping (no token)",
        security: [],
        responses: {
          200: ok("ready", { type: "object", properties: { status: { const: "ready" } }, required: ["status"] }),
          503: ok("not ready: the database did not answer, or the server is draining", {
            type: "object",
            properties: { status: { enum: ["unavailable", "draining"] }, database: { const: "unreachable" } },
            required: ["status"],
          }),
        },
      },
    },
    "/v1/openapi.json": {
      get: {
        operationId: "openapi",
        tags: ["service"],
        summary: "this document (no token); human-readable at /docs",
        security: [],
        responses: { 200: ok("the OpenAPI 3.1 document", { type: "object" }) },
      },
    },
  };
}
