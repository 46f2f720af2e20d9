import type { Operation, RouteSpec } from "../contract/routes.js";

/** Status → the `code` values an operation can answer with it. */
export type ErrorCodes = Map<number, string[]>;

type Domain = Partial<Record<409 | 422, string[]>> & { notFound?: boolean };

const NAME = ["name_taken"];
const FIELD_CHANGE: Domain = { 409: ["name_taken", "model_archived"], 422: ["compile_failed"] };
const EVIDENCE: Domain = { 409: ["model_not_active", "context_not_active"], notFound: true };
const RULE_WRITE: Domain = { 409: NAME, 422: ["compile_failed"] };

/**
 * What each operation can refuse beyond what every route shares (see errorCodesOf): the
 * conflicts and failed checks of its domain, and 404 for operations that name something
 * outside their path (a contribution's model and context, a dry run's rule or context).
 */
const DOMAIN: Partial<Record<Operation, Domain>> = {
  createModel: { 409: NAME, 422: ["compile_failed"] },
  updateModel: { 409: ["name_taken", "model_archived"], 422: ["compile_failed", "invalid_transition"] },
  setModelStatus: { 422: ["invalid_transition", "compile_failed"] },
  deleteModel: { 409: ["model_not_archived", "model_has_records"] },
  createField: FIELD_CHANGE,
  replaceModelField: FIELD_CHANGE,
  replaceField: FIELD_CHANGE,
  deleteModelField: { 409: ["model_archived"], 422: ["compile_failed"] },
  deleteField: { 409: ["model_archived"], 422: ["compile_failed"] },
  updateContext: { 409: ["context_not_active"] },
  setContextStatus: { 422: ["invalid_transition"] },
  deleteContext: { 409: ["context_not_archived"] },
  createContribution: EVIDENCE,
  updateRecord: EVIDENCE,
  deleteRecord: EVIDENCE,
  removeRelationship: { 409: ["context_not_active"] },
  createRule: RULE_WRITE,
  updateRule: RULE_WRITE,
  setRuleStatus: { 422: ["invalid_transition"] },
  evaluateRule: { 422: ["compile_failed"], notFound: true },
  setWebhookStatus: { 422: ["invalid_transition"] },
  redeliverWebhookDelivery: { 409: ["webhook_disabled"] },
  recoverWebhookDeliveries: { 409: ["webhook_disabled"] },
};

function add(codes: ErrorCodes, status: number, ...values: string[]): void {
  const list = codes.get(status) ?? [];
  for (const v of values) if (!list.includes(v)) list.push(v);
  codes.set(status, list);
}

/**
 * Every 4xx an operation can answer, with its codes (pure, from the route table):
 * - 400 `invalid_request` (a query parameter, path value or body of the wrong shape),
 *   `bulk_limit_exceeded` on bulk routes;
 * - 401 `unauthorized`; 403 `forbidden` where the route needs more than `read`;
 * - 404 `not_found` where the path names a resource or the operation names one;
 * - 408 `request_timeout`, 417 `expectation_failed` and 431 `header_fields_too_large` (the
 *   HTTP layer, any request);
 * - 409 `idempotency_in_progress` on every write, plus the operation's own conflicts;
 * - 413 `payload_too_large` on non-bulk writes (any body is read within the limit);
 * - 422 `validation_failed` where a body is read (the JSON limits at least), plus the
 *   operation's own checks;
 * - 429 `rate_limited` (every route of the table is rate-limited).
 */
export function errorCodesOf(route: RouteSpec): ErrorCodes {
  const codes: ErrorCodes = new Map();
  const domain = DOMAIN[route.operation] ?? {};
  add(codes, 400, "invalid_request");
  if (route.bulk) add(codes, 400, "bulk_limit_exceeded");
  add(codes, 401, "unauthorized");
  if (route.scope !== "read") add(codes, 403, "forbidden");
  if (route.path.includes("{") || domain.notFound) add(codes, 404, "not_found");
  add(codes, 408, "request_timeout");
  // Spread: an operation's own error codes, a handful written in DOMAIN above.
  if (route.method !== "GET") add(codes, 409, "idempotency_in_progress", ...(domain[409] ?? []));
  if (route.method !== "GET" && !route.bulk) add(codes, 413, "payload_too_large");
  if (route.body) add(codes, 422, "validation_failed");
  // Spread: as above.
  if (domain[422]) add(codes, 422, ...domain[422]);
  add(codes, 417, "expectation_failed");
  add(codes, 429, "rate_limited");
  add(codes, 431, "header_fields_too_large");
  return new Map([...codes].sort((a, b) => a[0] - b[0]));
}
