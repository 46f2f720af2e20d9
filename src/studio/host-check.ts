/**
 * Requests must name the studio's own address in `Host`: a page on another site that
 * rebinds its DNS name to 127.0.0.1 reaches the port, but with its own name in `Host`,
 * and is refused. Non-GET requests that carry an `Origin` must come from the studio's own
 * origin too. A studio listening on every interface (`--host 0.0.0.0`) cannot know the
 * names browsers will use for it, so it takes them from `--allow-host`, and refuses to
 * start without one rather than answer 403 to every other machine.
 */
import type { IncomingMessage } from "node:http";
import { errors } from "../contract/errors.js";
import { pushAll } from "../portable/arrays.js";

const LOOPBACK = ["127.0.0.1", "localhost", "::1"];
/** Addresses that mean "every interface". */
const WILDCARD = ["0.0.0.0", "::", "[::]"];

/** True for `0.0.0.0` and `::`: the studio listens on every interface. */
export function isWildcardHost(host: string): boolean {
  return WILDCARD.includes(host);
}

/** `::1` → `[::1]`: how an IPv6 address is written in `Host` and in a URL. */
function bracketed(name: string): string {
  return name.includes(":") && !name.startsWith("[") ? `[${name}]` : name;
}

/**
 * The names a browser may use for the studio, first the one its URL shows: the `--allow-host`
 * names, then the listening address itself (unless it is a wildcard), and the loopback names
 * when it listens on loopback or everywhere. Refuses a wildcard without `--allow-host`.
 */
export function hostNames(host: string, allow: readonly string[] = []): string[] {
  if (isWildcardHost(host) && allow.length === 0) {
    throw errors.usage(
      `--host ${host} listens on every interface, but the studio answers only to the names it is told (a guard against DNS rebinding): add --allow-host <name> for each address or name the browsers will use, e.g. --allow-host 192.168.1.20 --allow-host workstation.lan`,
    );
  }
  const names = [...allow];
  if (!isWildcardHost(host)) names.push(host);
  if (isWildcardHost(host) || LOOPBACK.includes(host)) pushAll(names, LOOPBACK);
  return [...new Set(names.map((n) => bracketed(n.toLowerCase())))];
}

/** The `host:port` spellings a browser may use for the studio (see {@link hostNames}). */
export function allowedHosts(host: string, port: number, allow: readonly string[] = []): Set<string> {
  return new Set(hostNames(host, allow).map((n) => `${n}:${port}`));
}

/** Why a request is refused (undefined when it may proceed). */
export function refusal(req: IncomingMessage, hosts: Set<string>): string | undefined {
  const host = (req.headers.host ?? "").toLowerCase();
  if (!hosts.has(host)) return `this studio answers only at ${[...hosts].join(", ")}, not ${host || "(no Host header)"}; start it with --allow-host <name> to add a name`;
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
