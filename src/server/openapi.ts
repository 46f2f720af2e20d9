import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { pathParams, ROUTES, RuleEvaluationResultSchema, type RouteSpec } from "../contract/routes.js";
import * as S from "../contract/schemas/index.js";
import { errorCodesOf } from "./openapi-errors.js";
import { BULK_ITEMS_PER_UNIT, WRITE_COST } from "../contract/rate-limit.js";
import { includeParameter, listParameters, pathParameters, wildcardFilters, type ParameterDoc } from "./openapi-params.js";
import { BULK_RESPONSES, EvaluationDoc, EvaluationTraceDoc, fixIdPatterns, named, TRACE_STEP_JSON } from "./openapi-schemas.js";
import { HEADER_COMPONENTS, headerRef, servicePaths, webhooksSection } from "./openapi-webhooks.js";

/** The zod-to-openapi route config type, taken from the registry's own signature. */
type RouteConfig = Parameters<OpenAPIHono["openAPIRegistry"]["registerPath"]>[0];

const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);
const SUCCESS: Record<200 | 201 | 202, string> = { 200: "ok", 201: "created", 202: "accepted: the dispatcher sends it (see the webhooks section)" };

/** The documented success body of a route (traces use the TraceStep stand-in). */
function responseOf(route: RouteSpec): z.ZodType {
  if (route.operation === "getContextEvaluation") return named(EvaluationDoc);
  if (route.operation === "listContextEvaluations" || route.operation === "listRuleEvaluations") return named(S.listEnvelope(EvaluationDoc));
  if (route.operation === "evaluateRule") return RuleEvaluationResultSchema.extend({ evaluationTrace: EvaluationTraceDoc });
  if (BULK_RESPONSES[route.operation]) return BULK_RESPONSES[route.operation];
  return route.response ? named(route.response) : z.unknown();
}

function describe(route: RouteSpec): string {
  const lines = [`Needs a token with the ${route.scope} scope.`];
  const wild = wildcardFilters(route);
  if (wild.length > 0) {
    lines.push(`Also filters on keys below ${wild.map((w) => w.slice(0, -2)).join(", ")}: filter[${wild[0].slice(0, -1)}<key>][<op>]=<value> (keys of letters, digits, '_' and '-').`);
  }
  if (route.query.kind === "list") lines.push("filter[<field>]=<value> is short for filter[<field>][eq]=<value>.");
  if (route.secret) lines.push("The 201 answer is the only one that shows the signing secret.");
  return lines.join(" ");
}

/** The zod-to-openapi description of one route: bodies and the success answer (the rest is added after). */
function toConfig(route: RouteSpec): RouteConfig {
  const request: RouteConfig["request"] = {};
  if (route.body) request.body = { required: true, content: { "application/json": { schema: named(route.body) } } };
  const success =
    route.status === 204
      ? { description: "done, no body" }
      : { description: SUCCESS[route.status], content: { "application/json": { schema: responseOf(route) } } };
  return {
    method: route.method.toLowerCase() as RouteConfig["method"],
    path: `/v1${route.path}`,
    operationId: route.operation,
    tags: [route.tag],
    summary: route.summary,
    description: describe(route),
    request,
    responses: {
      [route.status]: success,
      ...(route.alsoOk ? { 200: { description: route.alsoOk, content: { "application/json": { schema: responseOf(route) } } } } : {}),
    },
  };
}

/** Declares a route in the app's OpenAPI registry (the document is generated from it). */
export function declareRoute(app: Pick<OpenAPIHono, "openAPIRegistry">, route: RouteSpec): void {
  app.openAPIRegistry.registerPath(toConfig(route));
}

type Operation = { parameters?: ParameterDoc[]; responses: Record<string, Record<string, unknown>> };

/**
 * Adds what zod-to-openapi cannot express to one operation: every parameter enumerated,
 * the request and answer headers, and one problem response per 4xx status listing the
 * `code` values the operation can answer with.
 */
function complete(op: Operation, route: RouteSpec): void {
  const headers: ParameterDoc[] = [{ name: "X-Request-Id", in: "header", description: "echoed back; generated when absent or unusable", schema: { type: "string", maxLength: 128 } }];
  if (WRITE_METHODS.has(route.method)) {
    headers.push({ name: "Idempotency-Key", in: "header", description: "1-255 characters; a retry with the same key gets the first answer (kept 24 h)", schema: { type: "string", minLength: 1, maxLength: 255 } });
  }
  const include = includeParameter(route);
  op.parameters = [...pathParameters(route, pathParams(route.path)), ...listParameters(route), ...(include ? [include] : []), ...headers];
  // Every answer to an authenticated request carries the rate limit's headers (a 401 knows no token to charge).
  const limits = { "RateLimit-Policy": headerRef("RateLimitPolicy"), RateLimit: headerRef("RateLimit") };
  const common = (extra: Record<string, unknown> = {}, limited = true) => ({
    "X-Request-Id": headerRef("XRequestId"),
    ...(WRITE_METHODS.has(route.method) ? { "Idempotent-Replayed": headerRef("IdempotentReplayed") } : {}),
    ...(limited ? limits : {}),
    ...extra,
  });
  const success = op.responses[String(route.status)];
  success.headers = common(route.created ? { Location: headerRef("Location") } : {});
  // A create's other success (an unchanged contribution) has no Location: nothing was created.
  if (route.alsoOk && route.status !== 200) op.responses["200"].headers = common();
  for (const [status, codes] of errorCodesOf(route)) {
    const extra = status === 401 ? { "WWW-Authenticate": headerRef("WWWAuthenticate") } : status === 429 ? { "Retry-After": headerRef("RetryAfter") } : {};
    op.responses[String(status)] = {
      description:
        status === 429
          ? `rate_limited: the request's cost (a read 1, a write ${WRITE_COST}, a bulk ${WRITE_COST} plus 1 per ${BULK_ITEMS_PER_UNIT} items) is more than its workspace's or token's budget has left; nothing of it was applied and its Idempotency-Key was not recorded. Retry after Retry-After seconds; without Retry-After the request costs more than the limit ever allows at once and can never pass (RFC 9457 problem)`
          : `${codes.join(", ")} (RFC 9457 problem)`,
      headers: common(extra, status !== 401 && status !== 408 && status !== 417 && status !== 431),
      content: {
        "application/problem+json": {
          schema: { allOf: [{ $ref: "#/components/schemas/Problem" }, { type: "object", properties: { code: { type: "string", enum: codes } } }] },
        },
      },
    };
  }
  op.responses["503"] = {
    description:
      "database_unavailable: the database cannot serve now (unreachable, restarting, failing over, read-only, or every connection of the node busy); " +
      "retry after Retry-After seconds with the same Idempotency-Key, which replays or runs the request once. unavailable: the server cannot use a setting it needs (the secret key)",
    headers: common({ "Retry-After": headerRef("RetryAfter") }),
    content: {
      "application/problem+json": {
        schema: { allOf: [{ $ref: "#/components/schemas/Problem" }, { type: "object", properties: { code: { type: "string", enum: ["database_unavailable", "unavailable"] } } }] },
      },
    },
  };
  op.responses["5XX"] = {
    description: "internal_error: the cause is logged, never sent",
    headers: common(),
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  };
}

/**
 * The OpenAPI 3.1 document of an app whose routes were declared with `declareRoute`,
 * generated from the route table and the contract's zod schemas, then completed with
 * what a client generator needs: enumerated parameters, every 4xx with its codes, headers,
 * the webhook events and the service paths. Build it once per app: the table is static.
 */
export function openApiDocument(app: Pick<OpenAPIHono, "openAPIRegistry" | "getOpenAPI31Document">): object {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  // Registered so a route that answers no problem itself still finds the schema.
  app.openAPIRegistry.register("Problem", named(S.ProblemSchema));
  const generated = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Decisioning Data Service",
      version: "1",
      description:
        "The REST API of ddsctl serve. Errors are application/problem+json with a stable code; every 4xx an operation can answer is listed with its codes. Human-readable docs: /docs.",
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
  });
  const doc = generated as unknown as { paths: Record<string, Record<string, Operation>>; components: Record<string, Record<string, unknown>>; webhooks?: unknown };
  for (const route of ROUTES) complete(doc.paths[`/v1${route.path}`][route.method.toLowerCase()], route);
  Object.assign(doc.paths, servicePaths());
  doc.components.schemas.TraceStep = TRACE_STEP_JSON;
  doc.components.headers = HEADER_COMPONENTS;
  doc.webhooks = webhooksSection();
  fixIdPatterns(doc);
  return doc;
}
