import { z } from "zod";
import { LIST_SPECS } from "./list-query.js";
import * as S from "./schemas/index.js";
import type { DdsService } from "./service.js";

/**
 * The REST route table: one entry per operation of the DdsService that has a REST
 * address. The server registers a handler per entry, the HTTP client builds its requests
 * from the same entries, and the OpenAPI document is generated from them, so the three
 * cannot drift apart.
 *
 * Calling convention shared by server and client: a route's operation takes its path
 * parameters in path order, then the body (routes with `body`), or the list query
 * (`query.kind === "list"`), or the include options (`query.kind === "include"`); routes
 * with `writeOptions` take the service's WriteOptions after the body, whose
 * `idempotencyKey` travels as the Idempotency-Key header.
 */

/** HTTP methods the API uses. */
export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/** Token scopes (docs/rest-api.md): `write` implies `read`, `admin` implies `write`. */
export type TokenScope = "read" | "write" | "admin";

/** The service operations reachable over REST (the pipeline drain is not a resource). */
export type Operation = Exclude<keyof DdsService, "runPipeline" | "close">;

/** How a route reads its query string. */
export type RouteQuery =
  | { kind: "none" }
  | { kind: "list"; list: keyof typeof LIST_SPECS }
  | { kind: "include"; values: readonly string[] };

/** One REST operation. */
export interface RouteSpec {
  operation: Operation;
  method: HttpMethod;
  /** Relative to the `/v1` base, with `{param}` placeholders. */
  path: string;
  /** Success status: 200 reads/updates, 201 creation, 202 work queued (a redelivery), 204 deletion. */
  status: 200 | 201 | 202 | 204;
  /** Least scope a token needs. */
  scope: TokenScope;
  /** One line for the OpenAPI document. */
  summary: string;
  /** OpenAPI tag (the resource). */
  tag: string;
  query: RouteQuery;
  /** Request body schema (documentation; the service validates bodies itself). */
  body?: z.ZodType;
  /** Success body schema; absent for 204. */
  response?: z.ZodType;
  /** For 201: the `Location` is `/v1/<collection>/<response[idField]>`. */
  created?: { collection: string; idField: string };
  /** Bulk endpoint: an oversized body is 400 `bulk_limit_exceeded` rather than 413. */
  bulk?: boolean;
  /** The operation takes WriteOptions (`{idempotencyKey}`) after its body. */
  writeOptions?: boolean;
  /** The success answer carries a secret (shown once): a replay copy is stored encrypted. */
  secret?: boolean;
  /** A create that may also answer 200 with the same body: when, in one line for the OpenAPI document. */
  alsoOk?: string;
}

/** What `GET /pipeline/status` answers (the contract's PipelineStatus). */
export const PipelineStatusSchema = z.object({
  contexts: z.object({ resolved: z.number().int(), stale: z.number().int(), computing: z.number().int() }),
  waiting: z.number().int(),
  expiredClaims: z.number().int(),
});

const NONE: RouteQuery = { kind: "none" };
const list = (name: keyof typeof LIST_SPECS): RouteQuery => ({ kind: "list", list: name });
const bulkOf = (item: z.ZodType) => z.strictObject({ items: z.array(item).min(1).max(S.BULK_MAX_ITEMS) });
const dataOf = (item: z.ZodType) => z.object({ data: z.array(item) });

export const { RuleEvaluationRequestSchema, RuleEvaluationResultSchema } = S;

type Extra = Partial<Pick<RouteSpec, "body" | "response" | "created" | "bulk" | "writeOptions" | "query" | "status" | "secret" | "alsoOk">>;

function route(tag: string, scope: TokenScope, operation: Operation, method: HttpMethod, path: string, summary: string, extra: Extra = {}): RouteSpec {
  const status = extra.status ?? (method === "DELETE" && !extra.bulk ? 204 : extra.created ? 201 : 200);
  return { tag, scope, operation, method, path, summary, status, query: NONE, ...extra };
}

const created = (collection: string, idField: string) => ({ collection, idField });

/** Every REST route. Order matters: `/records/bulk` precedes `/records/{recordId}`. */
export const ROUTES: readonly RouteSpec[] = [
  route("models", "admin", "createModel", "POST", "/models", "create a model (draft) with its fields", { body: S.ModelCreate, response: S.Model, created: created("models", "modelId") }),
  route("models", "read", "listModels", "GET", "/models", "list models", { query: list("models"), response: S.ModelList }),
  route("models", "read", "getModel", "GET", "/models/{modelId}", "get a model with all its fields", { response: S.Model }),
  route("models", "admin", "updateModel", "PATCH", "/models/{modelId}", "change some properties of a model", { body: S.ModelPatch, response: S.Model }),
  route("models", "admin", "setModelStatus", "PUT", "/models/{modelId}/status/{targetStatus}", "move a model through its lifecycle", { response: S.Model }),
  route("models", "admin", "deleteModel", "DELETE", "/models/{modelId}", "soft-delete an archived model without records"),

  route("fields", "admin", "createField", "POST", "/models/{modelId}/fields", "add a field to a model", { body: S.FieldInput, response: S.Field, created: created("fields", "fieldId") }),
  route("fields", "read", "listModelFields", "GET", "/models/{modelId}/fields", "list the fields of a model", { response: S.listEnvelope(S.Field) }),
  route("fields", "read", "getModelField", "GET", "/models/{modelId}/fields/{fieldName}", "get a field by name", { response: S.Field }),
  route("fields", "admin", "replaceModelField", "PUT", "/models/{modelId}/fields/{fieldName}", "replace a field's mutable properties", { body: S.FieldInput, response: S.Field }),
  route("fields", "admin", "deleteModelField", "DELETE", "/models/{modelId}/fields/{fieldName}", "remove a field (soft)"),
  route("fields", "read", "listFields", "GET", "/fields", "list fields across models", { query: list("fields"), response: S.listEnvelope(S.Field) }),
  route("fields", "read", "getField", "GET", "/fields/{fieldId}", "get a field by fieldId", { response: S.Field }),
  route("fields", "admin", "replaceField", "PUT", "/fields/{fieldId}", "replace a field's mutable properties", { body: S.FieldInput, response: S.Field }),
  route("fields", "admin", "deleteField", "DELETE", "/fields/{fieldId}", "remove a field (soft)"),

  route("contexts", "write", "createContext", "POST", "/contexts", "create a decisioning context", { body: S.ContextCreate, response: S.Context, created: created("contexts", "contextId") }),
  route("contexts", "read", "listContexts", "GET", "/contexts", "list contexts", { query: list("contexts"), response: S.listEnvelope(S.Context) }),
  route("contexts", "read", "getContext", "GET", "/contexts/{contextId}", "get a context (include=summary adds counts)", { query: { kind: "include", values: ["summary"] }, response: S.Context }),
  route("contexts", "write", "updateContext", "PATCH", "/contexts/{contextId}", "change name, type or metadata", { body: S.ContextPatch, response: S.Context }),
  route("contexts", "write", "setContextStatus", "PUT", "/contexts/{contextId}/status/{targetStatus}", "move a context through its lifecycle", { response: S.Context }),
  route("contexts", "write", "deleteContext", "DELETE", "/contexts/{contextId}", "soft-delete an archived context"),

  route("contributions", "write", "createContribution", "POST", "/contributions", "ingest one contribution", {
    body: S.ContributionCreate,
    response: S.Contribution,
    created: created("contributions", "contributionId"),
    alsoOk: "unchanged: the same source's current contribution to the record already says exactly this (source type, observedAt, data, field confidences); that contribution is answered, nothing is stored, the context stays as it is, and no Location is sent",
  }),
  route("contributions", "write", "bulkCreateContributions", "POST", "/contributions/bulk", "ingest up to 100 contributions", { body: bulkOf(S.ContributionCreate), response: S.BulkResponse, bulk: true, writeOptions: true }),
  route("contributions", "read", "getContribution", "GET", "/contributions/{contributionId}", "get a contribution", { response: S.Contribution }),
  route("contributions", "read", "listContributions", "GET", "/contributions", "list contributions", { query: list("contributions"), response: S.listEnvelope(S.Contribution) }),

  route("records", "read", "listRecords", "GET", "/records", "list records", { query: list("records"), response: S.listEnvelope(S.RecordSchema) }),
  route("records", "write", "bulkUpdateRecords", "PATCH", "/records/bulk", "update up to 100 records", { body: bulkOf(S.RecordUpdateItem), response: S.BulkResponse, bulk: true, writeOptions: true }),
  route("records", "write", "bulkDeleteRecords", "DELETE", "/records/bulk", "delete up to 100 records", { body: bulkOf(S.RecordDeleteItem), response: S.BulkResponse, bulk: true, writeOptions: true }),
  route("records", "read", "getRecord", "GET", "/records/{recordId}", "get a record (include=model,lineage)", { query: { kind: "include", values: S.RECORD_INCLUDES }, response: S.RecordSchema }),
  route("records", "write", "updateRecord", "PATCH", "/records/{recordId}", "update a record (stored as manual evidence)", { body: S.RecordUpdate, response: S.RecordSchema }),
  route("records", "write", "deleteRecord", "DELETE", "/records/{recordId}", "soft-delete a record"),

  route("relationships", "read", "listRelationships", "GET", "/records/{recordId}/relationships", "list a record's links", { response: dataOf(S.RelationshipLink) }),
  route("relationships", "read", "listRelatedRecords", "GET", "/records/{recordId}/relationships/{relationshipName}", "records linked through one relationship", { response: dataOf(S.RecordSchema) }),
  route("relationships", "read", "listContextRelationships", "GET", "/contexts/{contextId}/relationships", "every link between a context's records, removed ones included", { response: dataOf(S.ContextLink) }),
  route("relationships", "write", "removeRelationship", "DELETE", "/records/{recordId}/relationships/{relationshipName}/{targetRecordId}", "remove one link"),

  route("rules", "admin", "createRule", "POST", "/rules", "create a rule", { body: S.RuleCreate, response: S.Rule, created: created("rules", "ruleId") }),
  route("rules", "read", "listRules", "GET", "/rules", "list rules", { query: list("rules"), response: S.listEnvelope(S.Rule) }),
  route("rules", "read", "getRule", "GET", "/rules/{ruleId}", "get a rule", { response: S.Rule }),
  route("rules", "admin", "updateRule", "PATCH", "/rules/{ruleId}", "change some properties of a rule", { body: S.RulePatch, response: S.Rule }),
  route("rules", "admin", "setRuleStatus", "PUT", "/rules/{ruleId}/status/{targetStatus}", "activate or deactivate a rule", { response: S.Rule }),
  route("rules", "admin", "deleteRule", "DELETE", "/rules/{ruleId}", "soft-delete a rule"),

  route("evaluations", "read", "evaluateRule", "POST", "/rules/evaluate", "dry-run a draft or saved rule against a context or a document; nothing is stored", {
    body: RuleEvaluationRequestSchema,
    response: RuleEvaluationResultSchema,
  }),
  route("evaluations", "read", "listContextEvaluations", "GET", "/contexts/{contextId}/evaluations", "evaluations of a context", { query: list("evaluations"), response: S.listEnvelope(S.Evaluation) }),
  route("evaluations", "read", "getContextEvaluation", "GET", "/contexts/{contextId}/evaluations/{ruleId}", "one rule's evaluation in a context", { response: S.Evaluation }),
  route("evaluations", "read", "listRuleEvaluations", "GET", "/rules/{ruleId}/evaluations", "evaluations of a rule across contexts", { query: list("evaluations"), response: S.listEnvelope(S.Evaluation) }),

  route("webhooks", "admin", "createWebhook", "POST", "/webhooks", "subscribe to events (the secret is shown once)", { body: S.WebhookCreate, response: S.Webhook, created: created("webhooks", "webhookId"), secret: true }),
  route("webhooks", "read", "listWebhooks", "GET", "/webhooks", "list subscriptions", { query: list("webhooks"), response: S.listEnvelope(S.Webhook) }),
  route("webhooks", "read", "getWebhook", "GET", "/webhooks/{webhookId}", "get a subscription", { response: S.Webhook }),
  route("webhooks", "admin", "deleteWebhook", "DELETE", "/webhooks/{webhookId}", "delete a subscription"),
  route("webhooks", "admin", "setWebhookStatus", "PUT", "/webhooks/{webhookId}/status/{targetStatus}", "enable a subscription again, or disable it (its events are kept as failed deliveries)", { response: S.Webhook }),
  route("webhooks", "read", "listWebhookDeliveries", "GET", "/webhooks/{webhookId}/deliveries", "a subscription's deliveries: status, attempts, last error, next attempt", { query: list("deliveries"), response: S.listEnvelope(S.WebhookDelivery) }),
  route("webhooks", "admin", "redeliverWebhookDelivery", "POST", "/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", "send one delivery again (same webhook-id, fresh retry schedule)", { response: S.WebhookDelivery, status: 202 }),
  route("webhooks", "admin", "recoverWebhookDeliveries", "POST", "/webhooks/{webhookId}/recover", "send every failed delivery created since a time again", { body: S.WebhookRecover, response: S.WebhookRecoverResult, status: 202 }),

  route("pipeline", "read", "pipelineStatus", "GET", "/pipeline/status", "count contexts by freshness (extension)", { response: PipelineStatusSchema }),
];

export { pathParams } from "./path-params.js";

/** The route of an operation (every REST operation has exactly one). */
export function routeOf(operation: Operation): RouteSpec {
  const found = ROUTES.find((r) => r.operation === operation);
  if (!found) throw new Error(`no route for operation ${operation}`);
  return found;
}
