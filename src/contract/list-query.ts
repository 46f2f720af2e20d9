import {
  CONTEXT_STATUSES,
  CONTRIBUTION_STATUSES,
  FIELD_TYPES,
  FRESHNESS,
  MODEL_STATUSES,
  RULE_CATEGORIES,
  RULE_SEVERITIES,
  RULE_STATUSES,
  SOURCE_TYPES,
  WEBHOOK_EVENTS,
  WEBHOOK_STATUSES,
  DELIVERY_STATUSES,
} from "./constants.js";
import { errors } from "./errors.js";

/** Filter operators (docs/rest-api.md, "Lists"). */
export const FILTER_OPS = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "contains"] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** One `filter[<field>][<op>]=<value>` clause. */
export interface FilterClause {
  field: string;
  op: FilterOp;
  value: string;
}

/** One sort key; `desc` when written with a leading `-`. */
export interface SortKey {
  field: string;
  desc: boolean;
}

/** What every list operation takes: page size, cursor, filters and sort. */
export interface ListQuery {
  limit?: number;
  cursor?: string;
  filters?: FilterClause[];
  sort?: SortKey[];
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

/**
 * What a filter value must be: an id, a timestamp, an integer, true/false, one of a set
 * of values, or any text. Checked before a query runs, so `status=actve` or
 * `createdAt>=yesterday` is a 400 that says what is allowed instead of an empty list.
 */
export type ValueKind = "uuid" | "timestamp" | "integer" | "boolean" | "text" | readonly string[];

/**
 * Which fields a list accepts in `filter[...]` and `sort`. A field ending in `.*`
 * admits any dotted key below it (`metadata.*` admits `metadata.region`). `kinds` gives
 * the value kind of a filter field (text when absent).
 */
export interface ListSpec {
  filters: readonly string[];
  sorts: readonly string[];
  defaultSort: readonly SortKey[];
  kinds?: Readonly<Record<string, ValueKind>>;
  /** Values a field's enum once had, by field, and what each is called now: a refusal names the new word. */
  renamed?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

const FILTER_KEY = /^filter\[([^\]]+)\]\[([^\]]+)\]$/;
const FILTER_KEY_SHORT = /^filter\[([^\]]+)\]$/;

/**
 * Parses URL query parameters into a ListQuery, rejecting malformed keys and values
 * with a 400. `include` and other non-list parameters are left for the caller.
 */
export function parseListQuery(params: URLSearchParams, extraKeys: readonly string[] = []): ListQuery {
  const query: ListQuery = { filters: [], sort: [] };
  for (const [key, value] of params) {
    if (key === "limit") {
      query.limit = parseLimit(value);
    } else if (key === "cursor") {
      query.cursor = value;
    } else if (key === "sort") {
      // Repeated sort parameters add keys (`sort=a&sort=-b` is `sort=a,-b`), as generated
      // clients send arrays by default.
      query.sort = [...query.sort!, ...parseSort(value)];
    } else {
      const m = FILTER_KEY.exec(key) ?? FILTER_KEY_SHORT.exec(key);
      if (m) {
        const op = (m[2] ?? "eq") as FilterOp;
        if (!FILTER_OPS.includes(op)) {
          throw errors.invalid(`unknown filter operator "${m[2]}" in ${key}; use one of ${FILTER_OPS.join(", ")}`);
        }
        query.filters!.push({ field: m[1], op, value });
      } else if (!extraKeys.includes(key)) {
        throw errors.invalid(`unknown query parameter "${key}"`);
      }
    }
  }
  return query;
}

/** Parses `limit`, which must be an integer within 1..500. */
export function parseLimit(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_LIMIT) {
    throw errors.invalid(`limit must be an integer from 1 to ${MAX_LIMIT}, got "${value}"`);
  }
  return n;
}

/** Parses `sort=name,-createdAt`. */
export function parseSort(value: string): SortKey[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => (s.startsWith("-") ? { field: s.slice(1), desc: true } : { field: s.replace(/^\+/, ""), desc: false }));
}

/** Writes a ListQuery back as URL query parameters (the HTTP client uses this). */
export function toSearchParams(query: ListQuery | undefined, params = new URLSearchParams()): URLSearchParams {
  if (!query) return params;
  if (query.limit !== undefined) params.set("limit", String(query.limit));
  if (query.cursor !== undefined) params.set("cursor", query.cursor);
  for (const f of query.filters ?? []) params.append(`filter[${f.field}][${f.op}]`, f.value);
  if (query.sort && query.sort.length > 0) {
    params.set("sort", query.sort.map((s) => (s.desc ? `-${s.field}` : s.field)).join(","));
  }
  return params;
}

/** True when `field` is admitted by the list of allowed names (with `prefix.*` wildcards). */
export function isAllowedField(allowed: readonly string[], field: string): boolean {
  if (allowed.includes(field)) return true;
  return allowed.some(
    (a) => a.endsWith(".*") && field.startsWith(a.slice(0, -1)) && field.length > a.length - 1,
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Why `value` is not of `kind`, or undefined when it is. */
function valueProblem(kind: ValueKind, value: string): string | undefined {
  if (typeof kind !== "string") return kind.includes(value) ? undefined : `one of ${kind.join(", ")}`;
  switch (kind) {
    case "uuid":
      return UUID.test(value) ? undefined : "an id (a UUID)";
    case "timestamp":
      return ISO_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : "an ISO 8601 date or time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z";
    case "integer":
      return /^-?\d+$/.test(value) ? undefined : "an integer";
    case "boolean":
      return value === "true" || value === "false" ? undefined : "true or false";
    case "text":
      return undefined;
  }
}

/** Rejects (400) a filter value that cannot match its field: a typo, not an empty list. */
export function checkFilterValue(spec: ListSpec, clause: FilterClause): void {
  const kind = spec.kinds?.[clause.field];
  if (!kind || kind === "text") return;
  if (clause.op === "contains") return;
  const values = clause.op === "in" ? clause.value.split(",") : [clause.value];
  for (const value of values) {
    const expected = valueProblem(kind, value);
    const now = spec.renamed?.[clause.field]?.[value];
    if (expected) throw errors.invalid(`filter ${clause.field}: "${value}" is not valid; use ${expected}${now ? ` ("${value}" is called "${now}" now)` : ""}`);
  }
}

/** Rejects (400) filter and sort fields the list does not document, and values their field cannot hold. */
export function checkListQuery(spec: ListSpec, query: ListQuery | undefined): void {
  for (const f of query?.filters ?? []) {
    if (!isAllowedField(spec.filters, f.field)) {
      throw errors.invalid(`unknown filter field "${f.field}"; filterable: ${spec.filters.join(", ")}`);
    }
    checkFilterValue(spec, f);
  }
  for (const s of query?.sort ?? []) {
    if (!isAllowedField(spec.sorts, s.field)) {
      throw errors.invalid(`unknown sort field "${s.field}"; sortable: ${spec.sorts.join(", ")}`);
    }
  }
}

const ts = ["createdAt", "updatedAt"] as const;
const byCreated: SortKey[] = [{ field: "createdAt", desc: false }];
const times = { createdAt: "timestamp", updatedAt: "timestamp" } as const;

/** The documented filter and sort fields of each list, with the kind of each filter's value. */
export const LIST_SPECS = {
  models: {
    filters: ["name", "status", "version", ...ts],
    sorts: ["name", "status", "version", ...ts],
    defaultSort: byCreated,
    kinds: { status: MODEL_STATUSES, version: "integer", ...times },
  },
  fields: {
    filters: ["modelId", "name", "type", "required", ...ts],
    sorts: ["name", "type", ...ts],
    defaultSort: byCreated,
    kinds: { modelId: "uuid", type: FIELD_TYPES, required: "boolean", ...times },
  },
  contexts: {
    filters: ["name", "type", "status", "freshness", "metadata.*", "resolvedAt", ...ts],
    sorts: ["name", "type", "status", "freshness", "resolvedAt", ...ts],
    defaultSort: byCreated,
    kinds: { status: CONTEXT_STATUSES, freshness: FRESHNESS, resolvedAt: "timestamp", ...times },
  },
  records: {
    filters: ["contextId", "modelId", "freshness", ...ts],
    sorts: [...ts],
    defaultSort: byCreated,
    kinds: { contextId: "uuid", modelId: "uuid", freshness: FRESHNESS, ...times },
  },
  contributions: {
    filters: ["contextId", "modelId", "recordId", "sourceId", "sourceType", "status", "receivedAt"],
    sorts: ["receivedAt"],
    defaultSort: [{ field: "receivedAt", desc: false }],
    kinds: { contextId: "uuid", modelId: "uuid", recordId: "uuid", sourceType: SOURCE_TYPES, status: CONTRIBUTION_STATUSES, receivedAt: "timestamp" },
  },
  rules: {
    filters: ["name", "category", "severity", "status", "version", ...ts],
    sorts: ["name", "category", "severity", "status", "version", ...ts],
    defaultSort: byCreated,
    kinds: { category: RULE_CATEGORIES, severity: RULE_SEVERITIES, status: RULE_STATUSES, version: "integer", ...times },
  },
  evaluations: {
    filters: ["ruleId", "contextId", "freshness", "outcome", "rule.name", "rule.severity", "rule.category", "ruleVersion", "computedAt"],
    sorts: ["computedAt", "rule.name", "rule.severity", "rule.category", "outcome"],
    defaultSort: [{ field: "computedAt", desc: false }],
    kinds: {
      ruleId: "uuid",
      contextId: "uuid",
      freshness: FRESHNESS,
      outcome: "boolean",
      "rule.severity": RULE_SEVERITIES,
      "rule.category": RULE_CATEGORIES,
      ruleVersion: "integer",
      computedAt: "timestamp",
    },
  },
  webhooks: { filters: ["url", "status", "createdAt"], sorts: ["createdAt"], defaultSort: byCreated, kinds: { status: WEBHOOK_STATUSES, createdAt: "timestamp" } },
  deliveries: {
    filters: ["status", "eventType", "createdAt"],
    sorts: ["createdAt"],
    defaultSort: byCreated,
    kinds: { status: DELIVERY_STATUSES, eventType: WEBHOOK_EVENTS, createdAt: "timestamp" },
    // `succeeded` was called `delivered` before (and is stored so): the refusal says so.
    renamed: { status: { delivered: "succeeded" } },
  },
} satisfies Record<string, ListSpec>;

/** The name of a list in LIST_SPECS. */
export type ListName = keyof typeof LIST_SPECS;
