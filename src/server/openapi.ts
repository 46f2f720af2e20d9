import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { MAX_LIMIT } from "../contract/list-query.js";
import { pathParams, RuleEvaluationResultSchema, type RouteSpec } from "../contract/routes.js";
import * as S from "../contract/schemas/index.js";
import { EvaluationDoc, EvaluationTraceDoc, fixIdPatterns, named, TRACE_STEP_JSON } from "./openapi-schemas.js";

/** The zod-to-openapi route config type, taken from the registry's own signature. */
type RouteConfig = Parameters<OpenAPIHono["openAPIRegistry"]["registerPath"]>[0];

const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);

/** The documented success body of a route (traces use the TraceStep stand-in). */
function responseOf(route: RouteSpec): z.ZodType {
  if (route.operation === "getContextEvaluation") return named(EvaluationDoc);
  if (route.operation === "listContextEvaluations" || route.operation === "listRuleEvaluations") return named(S.listEnvelope(EvaluationDoc));
  if (route.operation === "evaluateRule") return RuleEvaluationResultSchema.extend({ evaluationTrace: EvaluationTraceDoc });
  return route.response ? named(route.response) : z.unknown();
}

function queryOf(route: RouteSpec) {
  if (route.query.kind === "list") {
    return z.object({
      limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe("page size, default 50"),
      cursor: z.string().optional().describe("opaque cursor from the previous page's nextCursor"),
      sort: z.string().optional().describe("comma-separated sort keys, '-' for descending, e.g. -createdAt"),
    });
  }
  if (route.query.kind === "include") {
    return z.object({ include: z.string().optional().describe(`comma-separated, any of: ${route.query.values.join(", ")}`) });
  }
  return undefined;
}

function describeList(route: RouteSpec): string {
  if (route.query.kind !== "list") return route.summary;
  return `${route.summary}. Filters: filter[<field>][<op>]=<value> with op eq ne gt gte lt lte in contains.`;
}

/** The zod-to-openapi description of one route. */
function toConfig(route: RouteSpec): RouteConfig {
  const params = pathParams(route.path);
  const request: RouteConfig["request"] = {};
  if (params.length > 0) request.params = z.object(Object.fromEntries(params.map((p) => [p, z.string()])));
  const query = queryOf(route);
  if (query) request.query = query;
  if (WRITE_METHODS.has(route.method)) {
    request.headers = z.object({ "Idempotency-Key": z.string().max(255).optional().describe("makes retries safe; kept 24 h") });
  }
  if (route.body) request.body = { required: true, content: { "application/json": { schema: named(route.body) } } };
  const success =
    route.status === 204
      ? { description: "done, no body" }
      : {
          description: route.status === 201 ? "created" : "ok",
          content: { "application/json": { schema: responseOf(route) } },
          ...(route.status === 201 ? { headers: z.object({ Location: z.string() }) } : {}),
        };
  return {
    method: route.method.toLowerCase() as RouteConfig["method"],
    path: `/v1${route.path}`,
    operationId: route.operation,
    tags: [route.tag],
    summary: describeList(route),
    description: `Needs a token with the ${route.scope} scope.`,
    request,
    responses: {
      [route.status]: success,
      default: { description: "an error (RFC 9457)", content: { "application/problem+json": { schema: named(S.ProblemSchema) } } },
    },
  };
}

/** Declares a route in the app's OpenAPI registry (the document is generated from it). */
export function declareRoute(app: Pick<OpenAPIHono, "openAPIRegistry">, route: RouteSpec): void {
  app.openAPIRegistry.registerPath(toConfig(route));
}

/**
 * The OpenAPI 3.1 document of an app whose routes were declared with `declareRoute`,
 * generated from the route table and the contract's zod schemas. Build it once per app:
 * the table is static.
 */
export function openApiDocument(app: Pick<OpenAPIHono, "openAPIRegistry" | "getOpenAPI31Document">): object {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  const generated = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Decisioning Data Service",
      version: "1",
      description: "The REST API of ddsctl serve. Errors are application/problem+json with a stable code.",
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
  });
  const schemas = generated.components?.schemas;
  if (schemas) schemas.TraceStep = TRACE_STEP_JSON as (typeof schemas)[string];
  fixIdPatterns(generated);
  return generated;
}
