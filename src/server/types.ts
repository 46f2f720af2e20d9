import type { HttpBindings } from "@hono/node-server";
import type { Principal } from "../engine/auth/index.js";
import type { LocalEngine } from "../engine/local-engine.js";

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
}

/** The Hono environment of the API app. */
export interface ServerEnv {
  Variables: RequestVars;
  /** The Node request and response, when served by node:http (absent under `app.request`). */
  Bindings: Partial<HttpBindings>;
}

/** Writes one structured log line (stderr by default). */
export type LogFn = (line: string) => void;

/** What the server shares between middleware and the pipeline worker. */
export interface Activity {
  /** When the last write request was answered (ms since the epoch). */
  lastWriteAt: number;
  /** Set once shutdown began: responses ask clients to close their connection. */
  closing: boolean;
}
