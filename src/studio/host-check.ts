/**
 * Requests must name the studio's own address in `Host`: a page on another site that
 * rebinds its DNS name to 127.0.0.1 reaches the port, but with its own name in `Host`,
 * and is refused. Non-GET requests that carry an `Origin` must come from the studio's own
 * origin too.
 */
import type { IncomingMessage } from "node:http";

/** The `host:port` spellings a browser may use for a loopback studio. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set([host]);
  if (host === "127.0.0.1" || host === "localhost" || host === "::1") ["127.0.0.1", "localhost", "[::1]"].forEach((n) => names.add(n));
  if (host.includes(":") && !host.startsWith("[")) names.add(`[${host}]`);
  return new Set([...names].map((n) => `${n}:${port}`.toLowerCase()));
}

/** Why a request is refused (undefined when it may proceed). */
export function refusal(req: IncomingMessage, hosts: Set<string>): string | undefined {
  const host = (req.headers.host ?? "").toLowerCase();
  if (!hosts.has(host)) return `this studio answers only at ${[...hosts][0]}, not ${host || "(no Host header)"}`;
  const origin = req.headers.origin;
  if (origin !== undefined && req.method !== "GET" && req.method !== "HEAD") {
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      return `origin ${origin} is not this studio`;
    }
    if (!hosts.has(originHost)) return `origin ${origin} is not this studio`;
  }
  return undefined;
}
