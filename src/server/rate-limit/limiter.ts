import { errors, type DdsError } from "../../contract/errors.js";
import { formatRateSpec, parseRateSpec, type RateSpec } from "../../contract/rate-limit.js";
import { budgetOf, type Budget } from "./bucket.js";
import type { KeyBudget, KeyReading, Ledger, LedgerAnswer } from "./ledger.js";

/** The limits a server applies to a workspace and a token that have none of their own (null: none). */
export interface RateLimits {
  workspace: RateSpec | null;
  token: RateSpec | null;
}

/** Who a request is charged to: its token, its workspace, and their own limits as stored. */
export interface RateSubject {
  workspace: string;
  tokenId: string;
  workspaceRate?: string | null;
  tokenRate?: string | null;
}

/** Which limit refused a request, for the metric and the log (bounded: two names, two classes). */
export interface Refusal {
  limit: "workspace" | "token";
  /** `default`: the server's limit; `custom`: the workspace's or token's own. */
  class: "default" | "custom";
  workspace: string;
  tokenId: string;
  cost: number;
  /** Seconds to wait; undefined when the request can never pass. */
  retryAfter?: number;
}

/** A decision: admitted with the headers to send, or refused with the problem to answer (its headers too). */
export type Verdict = { admitted: true; headers: Record<string, string> } | { admitted: false; headers: Record<string, string>; error: DdsError; refusal: Refusal };

/** One limit that applies to a request. */
interface Applied {
  name: "workspace" | "token";
  custom: boolean;
  spec: RateSpec;
  key: KeyBudget;
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  limits: RateLimits;
  ledger: Ledger;
  /** Told of every refusal (the metric and the log). */
  onRefused?: (refusal: Refusal) => void;
}

/** Tokens whose limits are remembered at most (a bound, not a design: one entry per token). */
const MAX_KNOWN = 100_000;

/** A stored limit that cannot be read (written by hand): the default applies. */
const UNREADABLE = Symbol("unreadable");

/**
 * The server's rate limiter: every request of a limited route is charged its cost to its
 * workspace's budget and its token's, both or neither (docs/rest-api.md, "Rate limits").
 * A workspace's or token's own limit, kept on the database, replaces the server's default
 * for it. `check` is synchronous whenever the ledger can decide alone, so the read lane
 * stays a lane.
 */
export function createRateLimiter(options: RateLimiterOptions) {
  const { limits, ledger } = options;
  const parsed = new Map<string, RateSpec | null | typeof UNREADABLE>();
  const budgets = new Map<string, Budget>();
  const budgetFor = (spec: RateSpec) => {
    const id = formatRateSpec(spec);
    let b = budgets.get(id);
    if (!b) budgets.set(id, (b = budgetOf(spec)));
    return b;
  };
  /** A stored limit: its spec, null for off, undefined for the server's default. */
  const own = (text: string | null | undefined): RateSpec | null | undefined => {
    if (text === null || text === undefined) return undefined;
    let spec = parsed.get(text);
    if (spec === undefined) {
      try {
        spec = parseRateSpec(text, "a stored limit");
      } catch {
        spec = UNREADABLE;
      }
      parsed.set(text, spec);
    }
    return spec === UNREADABLE ? undefined : spec;
  };
  const resolve = (s: RateSubject): Applied[] => {
    const out: Applied[] = [];
    const ws = own(s.workspaceRate);
    const workspace = ws === undefined ? limits.workspace : ws;
    if (workspace) out.push({ name: "workspace", custom: ws !== undefined, spec: workspace, key: { key: `w:${s.workspace}`, budget: budgetFor(workspace) } });
    const tk = own(s.tokenRate);
    const token = tk === undefined ? limits.token : tk;
    if (token) out.push({ name: "token", custom: tk !== undefined, spec: token, key: { key: `t:${s.tokenId}`, budget: budgetFor(token) } });
    return out;
  };
  /** What applies to each token, kept while its workspace and own limits read the same: a check builds nothing it built before. */
  const known = new Map<string, { s: RateSubject; list: Applied[]; keys: KeyBudget[]; policy: string }>();
  const applied = (s: RateSubject) => {
    const hit = known.get(s.tokenId);
    if (hit && hit.s.workspace === s.workspace && hit.s.workspaceRate === s.workspaceRate && hit.s.tokenRate === s.tokenRate) return hit;
    const list = resolve(s);
    const entry = { s: { workspace: s.workspace, tokenId: s.tokenId, workspaceRate: s.workspaceRate, tokenRate: s.tokenRate }, list, keys: list.map((a) => a.key), policy: list.map((a) => `"${a.name}";q=${a.spec.quota};w=${a.spec.windowSeconds}`).join(", ") };
    if (known.size >= MAX_KNOWN) known.clear();
    known.set(s.tokenId, entry);
    return entry;
  };
  const headers = (list: Applied[], policy: string, readings: KeyReading[]): Record<string, string> => {
    let rate = "";
    for (let i = 0; i < list.length; i++) rate += `${i > 0 ? ", " : ""}"${list[i].name}";r=${readings[i].remaining};t=${readings[i].resetSeconds}`;
    return { "RateLimit-Policy": policy, RateLimit: rate };
  };

  const verdict = (s: RateSubject, cost: number, list: Applied[], policy: string, answer: LedgerAnswer): Verdict => {
    const h = headers(list, policy, answer.readings);
    if (answer.admitted) return { admitted: true, headers: h };
    // The limit that refused; of two, the one that makes the request wait longer.
    let worst = 0;
    answer.readings.forEach((r, i) => {
      if (r.waitMs > answer.readings[worst].waitMs) worst = i;
    });
    const a = list[worst];
    const r = answer.readings[worst];
    const whose = a.name === "token" ? "this token's" : `workspace ${s.workspace}'s`;
    const limit = `${whose} rate limit of ${formatRateSpec(a.spec)}`;
    const refusal: Refusal = { limit: a.name, class: a.custom ? "custom" : "default", workspace: s.workspace, tokenId: s.tokenId, cost };
    if (r.never) {
      const error = errors.rateLimited(
        `this request costs ${cost} units, more than ${limit} allows at once (${a.spec.quota}): it can never pass; send fewer items per request, or ask the operator for a higher limit`,
      );
      return { admitted: false, headers: h, error, refusal };
    }
    const retryAfter = Math.max(1, Math.ceil(r.waitMs / 1000));
    const error = errors.rateLimited(`rate limited: this request costs ${cost} units and ${limit} has ${r.remaining} left; retry after ${retryAfter} s`, retryAfter);
    return { admitted: false, headers: { ...h, "Retry-After": String(retryAfter) }, error, refusal: { ...refusal, retryAfter } };
  };
  const told = (v: Verdict): Verdict => {
    if (!v.admitted) options.onRefused?.(v.refusal);
    return v;
  };

  return {
    /**
     * Charges `cost` to the subject's budgets: the verdict, or undefined when no limit
     * applies to it (no headers then). Synchronous unless the ledger must ask the database.
     */
    check(s: RateSubject, cost: number): Verdict | Promise<Verdict> | undefined {
      const { list, keys, policy } = applied(s);
      if (list.length === 0) return undefined;
      const answer = ledger.take(keys, cost);
      return answer instanceof Promise ? answer.then((x) => told(verdict(s, cost, list, policy, x))) : told(verdict(s, cost, list, policy, answer));
    },
    /** Gives back what the ledger holds (PostgreSQL) and stops its timers. */
    close: () => ledger.close(),
  };
}

/** The rate limiter type. */
export type RateLimiter = ReturnType<typeof createRateLimiter>;
