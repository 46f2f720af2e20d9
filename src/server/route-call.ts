import { parseJsonBody } from "./body.js";
import type { RouteSpec } from "../contract/routes.js";
import type { LocalEngine } from "../engine/index.js";

/** What a request brings to its route's operation besides the path arguments. */
export interface RouteInput {
  /** The body text (routes with a body). */
  bodyText?: string;
  /** The body already parsed from that text, when something before the handler needed it. */
  parsed?: { value: unknown };
  /** The parsed list query or include options (routes without a body). */
  query?: unknown;
  /** The request's Idempotency-Key (write routes). */
  idempotencyKey?: string;
}

/**
 * Calls a route's operation on an engine with the route table's one calling convention:
 * the path parameters in path order, then the body, or the list query or include options,
 * then the write options with the Idempotency-Key. The HTTP app and the read lane both call
 * through here, so an operation is called the same way whichever answers it.
 */
export function callRoute(engine: LocalEngine, route: RouteSpec, pathArgs: readonly (string | undefined)[], input: RouteInput): Promise<unknown> {
  const args: unknown[] = [...pathArgs];
  if (route.body) args.push(input.parsed ? input.parsed.value : parseJsonBody(input.bodyText ?? ""));
  else if (route.query.kind !== "none") args.push(input.query);
  // The engine records the key in the batch's own transaction: exactly once even if the
  // server dies between committing the batch and storing the response.
  if (route.writeOptions && input.idempotencyKey) args.push({ idempotencyKey: input.idempotencyKey });
  // The route table guarantees the operation exists and takes these arguments.
  const operation = engine[route.operation] as (...a: unknown[]) => Promise<unknown>;
  return operation.apply(engine, args);
}
