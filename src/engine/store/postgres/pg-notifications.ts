import type postgres from "postgres";
import { connectPg } from "./pg-connect.js";
import type { PgTarget } from "./pg-target.js";
import { backoffMs, RECONNECT_BACKOFF } from "../../../util/backoff.js";
import type { Signal } from "../sql.js";
import { createClaimMarks } from "./pg-claim-marks.js";
import { CHANNEL, type Announcement, type CommitSink } from "./pg-sql.js";

/** How long `settled` waits for the listening session before it gives up and forgets every cached read. */
const SETTLE_MS = 2000;

/**
 * What this node hears from the others: one connection that LISTENs on the shared channel.
 * `change` notifications move the change stamp (so caches forget what they read), `work`
 * and `outbox` wake the pipeline worker and the webhook dispatcher. Commits made through
 * this process count at once, before their own notification comes back.
 *
 * While the listening connection is down nothing can be known about other nodes' commits:
 * the stamp then changes on every call, so nothing is cached until it is back, and on its
 * return every listener is woken once (it may have missed work meanwhile). It listens
 * again by itself, with a jittered, capped back-off; `reset` drops a connection that may
 * be silently dead (a cut network delivers no close) and listens on a new one.
 *
 * The same session holds the node's claim marks (`marks`, see pg-claim-marks.ts): it lives
 * as long as the node and is replaced, marks and all, whenever it is lost.
 */
export function createNotifications(target: PgTarget, defaults: Record<string, string> = {}): CommitSink & {
  start(): Promise<void>;
  stamp(): string;
  settled(): Promise<void>;
  on(signal: Signal, fn: () => void): () => void;
  reset(): void;
  close(): Promise<void>;
  readonly marks: ReturnType<typeof createClaimMarks>;
} {
  const marks = createClaimMarks();
  const listeners = new Map<Signal, Set<() => void>>();
  const fire = (signal: Signal) => {
    for (const fn of listeners.get(signal) ?? []) fn();
  };
  let remote = 0;
  let local = 0;
  let deaf = 0;
  let listening = false;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let current = "";
  let currentRemote = -1;
  let currentLocal = -1;

  const hear = (payload: string) => {
    if (payload === "change") remote++;
    else if (payload === "work" || payload === "outbox") fire(payload);
  };
  // The driver's own listen() is built on `onnotify` and `onclose` but hides the close,
  // which this store must see to stop caching; the options exist at run time, not in the
  // driver's types, hence the cast.
  const open = (): postgres.Sql => {
    const driver = {
      idle_timeout: undefined,
      max_lifetime: null,
      fetch_types: false,
      onnotify: (channel: string, payload: string) => {
        if (channel === CHANNEL) hear(payload);
      },
      onclose: () => {
        // A replaced client's close says nothing about the current one.
        if (client !== made) return;
        listening = false;
        marks.detach();
        if (!closed) schedule();
      },
    };
    const made = connectPg(target, { max: 1, defaults, driver });
    return made;
  };
  let client = open();
  const listen = async () => {
    const listened = client;
    await listened.unsafe(`LISTEN ${CHANNEL}`);
    // Marked again on every new session, before claims are looked for (below).
    if (listened === client) await marks.attach(listened);
    listening = true;
    failures = 0;
    // Whatever was committed while nobody listened: forget cached reads, look for work.
    remote++;
    fire("work");
    fire("outbox");
  };
  // Callers of `settled` waiting for the next round trip, and whether one is on its way.
  let waiting: (() => void)[] = [];
  let settling = false;
  const settle = () => {
    settling = true;
    const batch = waiting;
    waiting = [];
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (sure: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      // Not sure what was heard: forget every cached read instead.
      if (!sure) remote++;
      settling = false;
      for (const resolve of batch) resolve();
      if (waiting.length > 0) settle();
    };
    // Not listening: the stamp changes on every call anyway, nothing is cached.
    if (!listening) return finish(true);
    timer = setTimeout(() => finish(false), SETTLE_MS);
    timer.unref();
    client.unsafe("SELECT 1").then(
      () => finish(true),
      () => finish(false),
    );
  };
  const schedule = () => {
    if (retry || closed) return;
    retry = setTimeout(() => {
      retry = undefined;
      listen().catch(() => schedule());
    }, backoffMs(++failures, RECONNECT_BACKOFF));
    retry.unref();
  };

  return {
    marks,
    start: listen,
    committed(announced: ReadonlySet<Announcement>) {
      for (const a of announced) {
        if (a === "change") local++;
        else fire(a);
      }
    },
    stamp() {
      if (!listening) return `deaf:${++deaf}`;
      if (remote !== currentRemote || local !== currentLocal) {
        currentRemote = remote;
        currentLocal = local;
        current = `${remote}:${local}`;
      }
      return current;
    },
    settled() {
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (!settling) settle();
      });
    },
    on(signal, fn) {
      let set = listeners.get(signal);
      if (!set) listeners.set(signal, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
    reset() {
      if (closed) return;
      listening = false;
      marks.detach();
      const old = client;
      client = open();
      void old.end({ timeout: 0 }).catch(() => undefined);
      schedule();
    },
    async close() {
      closed = true;
      marks.detach();
      if (retry) clearTimeout(retry);
      await client.end({ timeout: 1 });
    },
  };
}
