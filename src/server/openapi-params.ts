import { z } from "@hono/zod-openapi";
import { CONTEXT_STATUSES, MODEL_STATUSES, RULE_STATUSES, WEBHOOK_STATUSES } from "../contract/constants.js";
import { DEFAULT_LIMIT, FILTER_OPS, LIST_SPECS, MAX_LIMIT, type ValueKind } from "../contract/list-query.js";
import type { RouteSpec } from "../contract/routes.js";
import * as S from "../contract/schemas/index.js";

/** An OpenAPI parameter object (the parts this document uses). */
export interface ParameterDoc {
  name: string;
  in: "query" | "path" | "header";
  required?: boolean;
  description?: string;
  schema: Record<string, unknown>;
  style?: string;
  explode?: boolean;
}

/** The item each list returns, whose properties type its filters. */
export const LIST_ITEMS: Record<keyof typeof LIST_SPECS, z.ZodType> = {
  models: S.Model,
  fields: S.Field,
  contexts: S.Context,
  records: S.RecordSchema,
  contributions: S.Contribution,
  rules: S.Rule,
  evaluations: S.Evaluation,
  webhooks: S.Webhook,
  deliveries: S.WebhookDelivery,
};

/** The states `PUT .../status/{targetStatus}` moves a resource to, by the route's tag. */
const TARGETS: Record<string, readonly string[]> = { models: MODEL_STATUSES, contexts: CONTEXT_STATUSES, rules: RULE_STATUSES, webhooks: WEBHOOK_STATUSES };

/** A property of an object schema by dotted path (`rule.severity`), optional/nullable unwrapped. */
export function propertyOf(schema: z.ZodType, path: string): z.ZodType | undefined {
  let node: z.ZodType | undefined = schema;
  for (const key of path.split(".")) {
    while (node instanceof z.ZodOptional || node instanceof z.ZodNullable) node = node.unwrap() as z.ZodType;
    node = node instanceof z.ZodObject ? (node.shape[key] as z.ZodType | undefined) : undefined;
    if (!node) return undefined;
  }
  while (node instanceof z.ZodOptional || node instanceof z.ZodNullable) node = node.unwrap() as z.ZodType;
  return node;
}

/**
 * The JSON Schema of a filter value: the values the list accepts when it declares a set of
 * them (what the server checks, so the document and the 400 never disagree), else the
 * field's own type (a number, a boolean, an id), else a string.
 */
function valueSchema(item: z.ZodType, field: string, kind: ValueKind | undefined): Record<string, unknown> {
  if (kind !== undefined && typeof kind !== "string") return { type: "string", enum: [...kind] };
  const prop = propertyOf(item, field);
  if (!prop) return { type: "string" };
  const json = z.toJSONSchema(prop, { unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  // Ids are checked by a flagged regex zod writes as `/…/i`; a uuid format says the same.
  if (typeof json.pattern === "string") return { type: "string", format: "uuid" };
  return ["string", "number", "integer", "boolean"].includes(json.type as string) ? json : { type: "string" };
}

const OP_WORDS: Record<string, string> = {
  eq: "equals",
  ne: "differs from (or is absent)",
  gt: "greater than",
  gte: "at least",
  lt: "less than",
  lte: "at most",
  in: "is one of (comma-separated)",
  contains: "contains (case-insensitive text)",
};

/**
 * The query parameters of a list route, each one enumerated: `limit`, `cursor`, `sort`
 * (its keys, `-` for descending) and `filter[<field>][<op>]` for every filterable field and
 * operator, typed like the field. A wildcard field (`metadata.*`) cannot be a parameter
 * name; it is described on the operation instead.
 */
export function listParameters(route: RouteSpec): ParameterDoc[] {
  if (route.query.kind !== "list") return [];
  const spec = LIST_SPECS[route.query.list];
  const item = LIST_ITEMS[route.query.list];
  const params: ParameterDoc[] = [
    { name: "limit", in: "query", description: `page size (default ${DEFAULT_LIMIT})`, schema: { type: "integer", minimum: 1, maximum: MAX_LIMIT } },
    { name: "cursor", in: "query", description: "the nextCursor of the previous page (opaque and signed: any other value is a 400)", schema: { type: "string" } },
    {
      name: "sort",
      in: "query",
      description: `sort keys, comma-separated, '-' for descending (default ${spec.defaultSort.map((s) => `${s.desc ? "-" : ""}${s.field}`).join(",")}); ties are broken by id`,
      schema: { type: "array", items: { type: "string", enum: spec.sorts.flatMap((f) => [f, `-${f}`]) } },
      style: "form",
      explode: false,
    },
  ];
  for (const field of spec.filters.filter((f) => !f.endsWith(".*"))) {
    const value = valueSchema(item, field, (spec.kinds as Readonly<Record<string, ValueKind>> | undefined)?.[field]);
    for (const op of FILTER_OPS) {
      const schema = op === "in" || op === "contains" ? { type: "string" } : value;
      params.push({ name: `filter[${field}][${op}]`, in: "query", description: `${field} ${OP_WORDS[op]}`, schema });
    }
  }
  return params;
}

/** The wildcard filters of a list (`metadata.*`), for the operation's description. */
export function wildcardFilters(route: RouteSpec): string[] {
  return route.query.kind === "list" ? LIST_SPECS[route.query.list].filters.filter((f) => f.endsWith(".*")) : [];
}

/** `include` of a route that takes it: an array of the values it knows. */
export function includeParameter(route: RouteSpec): ParameterDoc | undefined {
  if (route.query.kind !== "include") return undefined;
  return {
    name: "include",
    in: "query",
    description: "what to add to the answer, comma-separated",
    schema: { type: "array", items: { type: "string", enum: [...route.query.values] } },
    style: "form",
    explode: false,
  };
}

/** The path parameters of a route; `targetStatus` is the resource's lifecycle enum. */
export function pathParameters(route: RouteSpec, names: string[]): ParameterDoc[] {
  return names.map((name) => {
    const targets = name === "targetStatus" ? TARGETS[route.tag] : undefined;
    const schema: Record<string, unknown> = targets ? { type: "string", enum: [...targets] } : name.endsWith("Id") ? { type: "string", format: "uuid" } : { type: "string" };
    return { name, in: "path", required: true, schema, ...(targets ? { description: "the state to move to (case-insensitive)" } : {}) };
  });
}
