/**
 * The page's DdsService: every operation built from the route table (the same builder the
 * remote client uses) over the browser's fetch, against `/v1` on the studio's own origin.
 * Failures are the contract's DdsError, read back from the problem body, so the
 * workbench code shared with the CLI handles them as it does in a terminal.
 */
import routes from "dds:routes";
import { createRouteClient, type RequestSpec } from "../../../src/portable/route-client.js";
import { DdsError, type Problem } from "../../../src/contract/errors.js";
import type { DdsService } from "../../../src/contract/service.js";
import { readSessionKey } from "./session.js";

let key = readSessionKey();
const listeners = new Set<() => void>();

/** Called when the studio refuses the key (restarted, or the page was opened without it). */
export function onSessionRefused(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Replaces the key (after the user pasted the studio's URL). */
export function useSessionKey(next: string): void {
  key = next;
}

const isProblem = (v: unknown): v is Problem => typeof v === "object" && v !== null && typeof (v as Problem).code === "string";

/** Sends one request to the studio (`/v1` + path, or an absolute studio path). */
export async function send(spec: RequestSpec | { method: "GET"; path: string; raw: true }): Promise<unknown> {
  const query = "query" in spec && spec.query ? spec.query.toString() : "";
  const url = "raw" in spec ? spec.path : `/v1${spec.path}${query ? `?${query}` : ""}`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const body = "body" in spec && spec.body !== undefined ? JSON.stringify(spec.body) : undefined;
  if (body !== undefined) headers["content-type"] = "application/json";
  if (spec.method !== "GET") headers["idempotency-key"] = ("idempotencyKey" in spec && spec.idempotencyKey) || crypto.randomUUID();
  let res: Response;
  try {
    res = await fetch(url, { method: spec.method, headers, body });
  } catch {
    throw new DdsError("unavailable", "the studio does not answer: is ddsctl studio still running?");
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (res.ok) return parsed;
  if (res.status === 401) listeners.forEach((fn) => fn());
  if (isProblem(parsed)) throw DdsError.fromProblem(parsed);
  throw new DdsError("internal_error", `unexpected HTTP ${res.status} from the studio`);
}

const rest = createRouteClient(routes, send);

/** The service the views and the shared workbench code use. */
export const service: DdsService = {
  ...rest,
  runPipeline: () => Promise.reject(new DdsError("not_implemented", "the studio does not drive the pipeline; the service resolves contexts itself")),
  close: async () => undefined,
};
