/**
 * The client side of the fault suite (faults.test.ts): a keyed bulk load that behaves as a
 * careful client does (each batch under its own Idempotency-Key, sent again to the other
 * node after a network error, a time-out or any 5xx, and waited for on 409), and a prober
 * per node that tells when each node serves again. Every answer is kept with when it was
 * asked and answered, so each fault can be judged by what was answered while it lasted.
 */

/** One answer (or failure to answer) seen by the load or a prober. */
export interface Seen {
  node: number;
  /** performance.now() when the request was sent and when its answer (or error) came. */
  sentAt: number;
  at: number;
  /** HTTP status; 0 for a network error or a time-out of this client. */
  status: number;
  problem: boolean;
  retryAfter: boolean;
  code?: string;
  error?: string;
}

/** A batch of the load: its key, its items, and (once acknowledged) the contribution ids it stored. */
export interface Batch {
  key: string;
  items: Record<string, unknown>[];
  ids?: string[];
}

/** How long this client waits for an answer before it tries the other node (a paused node never answers). */
const CLIENT_TIMEOUT_MS = 4000;
/** Pause before the same batch is sent again (kept short: the suite measures the nodes, not the client). */
const RETRY_PAUSE_MS = 150;
/** A batch refused this many times in a row (some 90 s) stops the load, with what it got: a node is stuck on it. */
const MAX_TRIES = 600;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends one request and records what came back. */
async function ask(origins: string[], node: number, token: string, path: string, init: { method?: string; body?: string; key?: string } = {}): Promise<Seen & { text: string }> {
  const sentAt = performance.now();
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (init.body) headers["content-type"] = "application/json";
  if (init.key) headers["idempotency-key"] = init.key;
  try {
    const res = await fetch(`${origins[node]}${path}`, { method: init.method ?? "GET", headers, body: init.body, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    const text = await res.text();
    const problem = res.headers.get("content-type") === "application/problem+json";
    const code = problem ? (JSON.parse(text) as { code?: string }).code : undefined;
    return { node, sentAt, at: performance.now(), status: res.status, problem, retryAfter: /^\d+$/.test(res.headers.get("retry-after") ?? ""), code, text };
  } catch (err) {
    return { node, sentAt, at: performance.now(), status: 0, problem: false, retryAfter: false, error: (err as Error).name, text: "" };
  }
}

/**
 * Runs batches through the nodes with `lanes` requests in flight: lane i starts on node
 * i mod n and, after any failure, goes on with the same batch on the next node. Resolves
 * once every batch was acknowledged (200); a 4xx other than 409 stops the load with an
 * error (a valid batch never deserves one).
 */
export async function runLoad(origins: string[], token: string, batches: Batch[], seen: Seen[], lanes = 4): Promise<void> {
  let next = 0;
  const lane = async (l: number) => {
    let node = l % origins.length;
    while (next < batches.length) {
      const batch = batches[next++];
      const tries: string[] = [];
      for (;;) {
        const r = await ask(origins, node, token, "/v1/contributions/bulk", { method: "POST", body: JSON.stringify({ items: batch.items }), key: batch.key });
        seen.push(r);
        tries.push(`${r.node}:${r.status || r.error}${r.code ? `/${r.code}` : ""}`);
        if (tries.length >= MAX_TRIES) throw new Error(`batch ${batch.key} was refused ${tries.length} times; the last answers: ${tries.slice(-12).join(" ")}`);
        if (r.status === 200) {
          const body = JSON.parse(r.text) as { items: { data?: { contributionId: string } }[] };
          batch.ids = body.items.flatMap((i) => (i.data ? [i.data.contributionId] : []));
          break;
        }
        if (r.status >= 400 && r.status < 500 && r.status !== 409) throw new Error(`batch ${batch.key} got ${r.status}: ${r.text.slice(0, 300)}`);
        // The same node while its first run of the key is still going; else the other one.
        if (r.status !== 409) node = (node + 1) % origins.length;
        await sleep(RETRY_PAUSE_MS);
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, (_, l) => lane(l)));
}

/** Asks each node for a page of contexts every 50 ms until stopped; every answer goes to `seen`. */
export function startProbers(origins: string[], token: string, seen: Seen[]): { stop(): Promise<void> } {
  let stopping = false;
  const probe = async (node: number) => {
    while (!stopping) {
      // A query string keeps the read off the read lane's cache: this reaches the database.
      const { text: _text, ...r } = await ask(origins, node, token, "/v1/contexts?limit=1");
      seen.push(r);
      await sleep(50);
    }
  };
  const running = origins.map((_, n) => probe(n));
  return {
    async stop() {
      stopping = true;
      await Promise.all(running);
    },
  };
}

/** Statuses of the answers in `seen` sent from `from` and answered by `to` (performance.now()), counted. */
export function statusesBetween(seen: Seen[], from: number, to: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of seen) {
    if (s.sentAt < from || s.at > to) continue;
    const key = s.status === 0 ? `no answer (${s.error})` : String(s.status);
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/** Seconds from `from` until each node's first 200 answered after it (Infinity when none). */
export function secondsToServe(seen: Seen[], nodes: number, from: number): number[] {
  return Array.from({ length: nodes }, (_, node) => {
    const first = seen.filter((s) => s.node === node && s.status === 200 && s.sentAt >= from).sort((a, b) => a.at - b.at)[0];
    return first ? Math.round((first.at - from) / 10) / 100 : Infinity;
  });
}
