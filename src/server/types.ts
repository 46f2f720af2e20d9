import type { HttpBindings } from "@hono/node-server";
import type { Principal, LocalEngine } from "../engine/index.js";

/** Per-request values the middleware chain hands to the route handler. */
export interface RequestVars {
  requestId: string;
  /** The route template that matched (`/v1/contexts/{contextId}`), set first in its chain. */
  route: string;
  /** The authenticated token (set by the auth middleware). */
  principal: Principal;
  /** The engine of the token's workspace, acting as `token:<tokenId>`. */
  engine: LocalEngine;
  /** The raw request body text ("" when none), read within the size limit. */
  bodyText: string;
  /** The body already parsed (the rate limit reads a bulk's items), so the handler does not parse it again. */
  parsedBody?: { value: unknown };
  /**
   * Set by a route whose 5xx is its answer, not a failure (`/readyz`'s 503): the access log
   * writes it like any other answer, not as an error, and `--quiet` silences it.
   */
  answerNotFailure?: boolean;
}

/** The Hono environment of the API app. */
export interface ServerEnv {
  Variables: RequestVars;
  /** The Node request and response, when served by node:http (absent under `app.request`). */
  Bindings: Partial<HttpBindings>;
}

/** Writes one structured log line (stderr by default). */
export type LogFn = (line: string) => void;

export type { Activity } from "../engine/index.js";

/** The engine each authenticated caller gets. */
export interface Engines {
  get(principal: Principal): LocalEngine;
}
