import type { IncomingMessage, ServerResponse } from "node:http";
import { type Authenticator, type Principal, type Store, StampedCache } from "../engine/index.js";
import { requestIdOf } from "./access-log.js";
import { admit, bearerToken, type Admission } from "./auth.js";
import { parseRouteQuery } from "./query.js";
import { callRoute } from "./route-call.js";
import { markRoute } from "./route-mark.js";
import { matchRoute, type MatchedRoute } from "./route-table.js";
import type { ServerLogger } from "./server-log.js";
import type { Activity, Engines } from "./types.js";
import { READ_COST } from "../contract/rate-limit.js";
import type { RateLimiter, Verdict } from "./rate-limit/limiter.js";
import { markCharged } from "./rate-limit/middleware.js";

/** The node:http listener everything else goes to (the Hono app). */
export type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

const NO_QUERY = new URLSearchParams();
/**
 * How often the lane re-reads SQLite's data_version (a read lock each time, which on every
 * request halved the throughput of small reads). A commit by another process (another
 * `ddsctl` on the same file) is noticed on the next request anyway, from the wal-index
 * header read on every call (one pread, see wal-index-watch.ts); writes through this
 * server count at once. (On PostgreSQL see Store.settled.)
 */
const EXTERNAL_CHANGES_MS = 1;
/** Cached read answers at most (each a few hundred bytes to a few KB). */
const MAX_CACHED = 1000;

/**
 * The header lines of an answer with the rate limit's, as the app sends them: its Headers
 * give node:http their names lowercase and in name order, then Content-Length comes last.
 * A flat [name, value, name, value] array, which node:http takes as it is (an object it
 * would walk key by key).
 */
function withLimits(requestId: string, length: string, limits: Record<string, string>): string[] {
  let i = 0;
  let same = true;
  for (const name in limits) if (layout.given[i++] !== name) same = false;
  if (!same || i !== layout.given.length) layout = layoutOf(Object.keys(limits));
  const { order } = layout;
  const lines = new Array<string>(order.length * 2 + 2);
  for (let j = 0; j < order.length; j++) {
    const given = order[j][1];
    lines[2 * j] = order[j][0];
    lines[2 * j + 1] = given === "" ? "application/json" : given === "\n" ? requestId : limits[given];
  }
  lines[order.length * 2] = "content-length";
  lines[order.length * 2 + 1] = length;
  return lines;
}

/** The order of the header lines for one set of rate-limit header names: [name sent, name given] ("" Content-Type, "\n" X-Request-Id). */
function layoutOf(given: string[]): { given: string[]; order: [string, string][] } {
  const order: [string, string][] = [["content-type", ""], ["x-request-id", "\n"], ...given.map((g): [string, string] => [g.toLowerCase(), g])];
  order.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { given, order };
}
/** The limiter gives the same names every time: their layout is worked out once. */
let layout = layoutOf([]);

/** A single-resource read's answer as sent: its body, the route that made it, and for whom. */
interface Answer {
  body: string;
  /** The body's length in bytes, as the Content-Length line says it. */
  length: string;
  template: string;
  status: number;
  principal: Principal;
  /** The bearer token it was answered for (what a refusal of it, once expired, is remembered by). */
  token: string;
}

/**
 * Answers by path, then by Authorization header, while the change stamp is unchanged (a
 * new stamp empties it): two lookups of the strings as received, where one key made of both
 * would be built and hashed anew on every request.
 */
class AnswerCache {
  private readonly byPath = new Map<string, Map<string, Answer>>();
  private stamp = "";
  private size = 0;
  /**
   * The last answer found, with its path and header: a poll asks the same again, and two
   * string comparisons cost less than hashing both strings (new on every request) for the maps.
   */
  private last: { path: string; authorization: string; answer: Answer } | undefined;

  constructor(private readonly max: number) {}

  get(stamp: string, path: string, authorization: string): Answer | undefined {
    if (stamp !== this.stamp) {
      this.byPath.clear();
      this.size = 0;
      this.last = undefined;
      this.stamp = stamp;
      return undefined;
    }
    const last = this.last;
    if (last !== undefined && last.path === path && last.authorization === authorization) return last.answer;
    const answer = this.byPath.get(path)?.get(authorization);
    if (answer !== undefined) this.last = { path, authorization, answer };
    return answer;
  }

  /** Remembers an answer made under `stamp`; ignored when the stamp has moved on since. */
  set(stamp: string, path: string, authorization: string, answer: Answer): void {
    if (stamp !== this.stamp) return;
    if (this.size >= this.max) {
      this.byPath.clear();
      this.size = 0;
      this.last = undefined;
    }
    if (this.last !== undefined && this.last.path === path && this.last.authorization === authorization) this.last = undefined;
    let byToken = this.byPath.get(path);
    if (!byToken) this.byPath.set(path, (byToken = new Map()));
    if (!byToken.has(authorization)) this.size++;
    byToken.set(authorization, answer);
  }
}

/** What the read lane needs: the store, the app's own authenticator, engines, activity and logger. */
export interface ReadLaneOptions {
  store: Store;
  auth: Authenticator;
  engines: Engines;
  activity: Activity;
  logger?: ServerLogger;
  /** Charges each read its cost; a refused one goes to the app, which answers the 429. */
  rateLimiter?: RateLimiter;
  /** Marks each answered response with its route template (markRoute), for the metrics. */
  markRoutes?: boolean;
}

/**
 * The read lane: plain successful reads answered straight from node:http. A GET without
 * a query string or escapes in its path, with a valid token of the route's scope, is
 * served here by the same engine call, with the same body and headers the app would
 * send (Content-Type, X-Request-Id, Content-Length) and the same access-log line. Anything
 * else (writes, queries, a bad token, a read that fails) goes to the app unchanged, which
 * keeps one code path for every error. Reads are side-effect free, so a read the lane
 * gave up on is simply done again there.
 *
 * Single-resource reads (`get*` operations) are also remembered, as the JSON sent, per
 * workspace and path, while the store's change stamp is unchanged: any row written
 * through this process, or committed by another process (SQLite) or another node
 * (PostgreSQL) before the request arrived, empties the cache: on PostgreSQL each read first
 * waits for Store.settled (one shared round trip), since notifications lag their commits.
 * A CI job polling a context until it is resolved costs no statement per poll on SQLite.
 *
 * Why: building a WHATWG Request and Response around every call cost five times the
 * read itself (a context lookup answered ~4k requests/s through the app alone).
 */
export function createReadLane(options: ReadLaneOptions): (req: IncomingMessage, res: ServerResponse, next: Listener) => void {
  const { store, auth, engines, activity, logger, rateLimiter } = options;
  const markRoutes = options.markRoutes ?? true;
  const cache = new StampedCache<string>(MAX_CACHED);
  /**
   * The answers sent, by path and the Authorization header as presented, under the same
   * change stamp as `cache`: the same request again is answered with what was sent, without
   * routing it or admitting its token again (any change, a revocation included, moves the
   * stamp and empties this); the token's expiry and use, and the rate limit, still apply.
   */
  const answers = new AnswerCache(MAX_CACHED);
  /**
   * A request header by its lowercase name, read from rawHeaders (cheaper than building
   * req.headers); repeated headers are joined with ", " as the app's Headers join them.
   */
  const header = (req: IncomingMessage, name: string): string | undefined => {
    const raw = req.rawHeaders;
    let value: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      if (raw[i].length === name.length && raw[i].toLowerCase() === name) value = value === undefined ? raw[i + 1] : `${value}, ${raw[i + 1]}`;
    }
    return value;
  };

  /** Sends an answer, with its headers (the rate limit's too) and its access-log line. */
  const send = (req: IncomingMessage, res: ServerResponse, answer: Answer, started: number, limits?: Record<string, string>) => {
    const requestId = requestIdOf(header(req, "x-request-id"));
    // Only the metrics read the route off the response (a property set for nobody otherwise).
    if (markRoutes) markRoute(res, answer.template);
    res.writeHead(answer.status, limits ? withLimits(requestId, answer.length, limits) : ["content-type", "application/json", "x-request-id", requestId, "content-length", answer.length]);
    res.end(answer.body);
    if (logger?.requests) logger.request({ method: "GET", path: req.url!, route: answer.template, status: answer.status, started, workspace: answer.principal.workspace, requestId });
  };

  const serve = (
    req: IncomingMessage,
    res: ServerResponse,
    next: Listener,
    found: MatchedRoute,
    principal: Principal,
    stamp: string,
    started: number,
    authorization: string,
    limits?: Record<string, string>,
  ) => {
    const path = req.url!;
    const cacheable = found.route.operation.startsWith("get");
    const answer = (body: string): Answer => {
      const made = { body, length: String(Buffer.byteLength(body)), template: found.template, status: found.route.status, principal, token: bearerToken(authorization) ?? "" };
      if (cacheable) answers.set(stamp, path, authorization, made);
      return made;
    };
    const key = `${principal.workspace}\n${path}`;
    const hit = cacheable ? cache.get(stamp, key) : undefined;
    if (hit !== undefined) return send(req, res, answer(hit), started, limits);
    const query = found.route.query.kind !== "none" ? parseRouteQuery(found.route, NO_QUERY) : undefined;
    let call: Promise<unknown>;
    try {
      call = callRoute(engines.get(principal), found.route, found.args, { query });
    } catch {
      return void next(req, res);
    }
    call.then(
      (result) => {
        const body = JSON.stringify(result);
        // Kept only under the stamp read before the call (a change since empties the cache).
        if (cacheable) cache.set(stamp, key, body);
        send(req, res, answer(body), started, limits);
      },
      () => void next(req, res),
    );
  };

  /** Whether the lane may answer this request; everything else goes to the app as it came. */
  const eligible = (req: IncomingMessage): boolean => {
    const path = req.url ?? "";
    return req.method === "GET" && !activity.closing && path.startsWith("/v1/") && !path.includes("?") && !path.includes("%");
  };
  /**
   * The rate limit's verdict on a read, recorded on the request; a read over it goes to the
   * app, which answers the 429 with this verdict (so: undefined, and the caller stops).
   */
  const admitted = (req: IncomingMessage, res: ServerResponse, next: Listener, v: Verdict): Record<string, string> | undefined => {
    markCharged(req, v);
    if (v.admitted) return v.headers;
    next(req, res);
    return undefined;
  };
  /** Charges a read its cost, then `then` with the limit's headers (none without a limit). */
  const charge = (req: IncomingMessage, res: ServerResponse, next: Listener, principal: Principal, then: (limits?: Record<string, string>) => void) => {
    const checked = rateLimiter?.check(principal, READ_COST);
    if (checked === undefined) return then();
    if (!(checked instanceof Promise)) {
      const limits = admitted(req, res, next, checked);
      return limits && then(limits);
    }
    checked.then(
      (v) => {
        const limits = admitted(req, res, next, v);
        if (limits) then(limits);
      },
      () => void next(req, res),
    );
  };
  const lane = (req: IncomingMessage, res: ServerResponse, next: Listener, started: number, stamp = store.changeStamp(EXTERNAL_CHANGES_MS)) => {
    const path = req.url!;
    const authorization = header(req, "authorization");
    // The same request answered before under this stamp, its token still valid: that answer again, charged.
    const known = authorization === undefined ? undefined : answers.get(stamp, path, authorization);
    if (known !== undefined && auth.used?.(known.principal, known.token)) {
      return charge(req, res, next, known.principal, (limits) => send(req, res, known, started, limits));
    }
    const found = matchRoute("GET", path);
    if (!found) return void next(req, res);
    // The app's own admission rule; a refusal is answered by the app, with its problem.
    const proceed = ({ principal, refused }: Admission) =>
      refused === undefined ? charge(req, res, next, principal, (limits) => serve(req, res, next, found, principal, stamp, started, authorization!, limits)) : void next(req, res);
    // A remembered verdict answers at once; otherwise the token is looked up first.
    const admission = admit(found.route, auth, authorization, stamp);
    if (!(admission instanceof Promise)) return proceed(admission);
    admission.then(proceed, () => void next(req, res));
  };

  const settled = store.settled?.bind(store);
  if (!settled) {
    // SQLite: the reads that arrive in one turn of the event loop are answered together, in
    // the turn's check phase (setImmediate), under one read of the change stamp. Every
    // socket of the turn has been read by then, so a commit that another process reported
    // done before any of these requests arrived is in that stamp, as it is when each reads
    // its own; and reading it costs a pread of the wal-index (about 4 µs of a 28 µs read
    // here, where bare node:http answers in 19 µs) once per turn instead of once a request.
    let batch: [IncomingMessage, ServerResponse, Listener, number][] = [];
    const answerBatch = () => {
      const reads = batch;
      batch = [];
      const stamp = store.changeStamp(EXTERNAL_CHANGES_MS);
      for (const [req, res, next, started] of reads) lane(req, res, next, started, stamp);
    };
    return (req, res, next) => {
      if (!eligible(req)) return void next(req, res);
      if (batch.push([req, res, next, logger?.requests ? performance.now() : 0]) === 1) setImmediate(answerBatch);
    };
  }
  // PostgreSQL: the change stamp is read once every commit that returned on another node
  // before this request arrived has been heard (Store.settled), so nothing cached before it
  // is answered.
  return (req, res, next) => {
    if (!eligible(req)) return void next(req, res);
    const started = logger?.requests ? performance.now() : 0;
    settled().then(
      () => lane(req, res, next, started),
      () => void next(req, res),
    );
  };
}
