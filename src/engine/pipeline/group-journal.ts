import type { PassContribution, PassRecord } from "./types.js";

/** A record a write group created, as a pass sees it. */
export interface JournalRecord {
  key: number;
  contextKey: number;
  record: PassRecord;
}

/** A contribution a write group wrote, as a pass sees it. */
export interface JournalContribution {
  key: number;
  contextKey: number;
  recordKey: number;
  contribution: PassContribution;
}

/** What a write group wrote into one context. */
export interface JournalContext {
  /** Records the group created, by id. */
  created: Map<string, JournalRecord>;
  /** Keys of the records the group gave evidence (created or not). */
  touched: Set<number>;
  /** The group's contributions still accepted, by key. */
  accepted: Map<number, JournalContribution>;
}

/** One call's writes, kept apart until the call's transaction has committed. */
interface CallWrites {
  created: JournalRecord[];
  contributions: JournalContribution[];
  /** Whether each of `contributions` is still accepted once the call ends. */
  accepted: boolean[];
  superseded: number[];
}

const emptyCall = (): CallWrites => ({ created: [], contributions: [], accepted: [], superseded: [] });

/**
 * What the calls of one write group wrote (records created, contributions accepted), kept
 * in memory so that the passes run as the group ends resolve its contexts from it instead
 * of reading back the rows it has just written. A call's writes count once its transaction
 * has committed (`accept`); a call that fails leaves nothing (`discard`). The store's keys
 * grow with every row a group inserts on SQLite: the first ones bound what was there
 * before the group.
 */
export class GroupJournal {
  private readonly byContext = new Map<number, JournalContext>();
  /** Where each accepted contribution of the group is, by key (a later call may supersede it). */
  private readonly contextOf = new Map<number, number>();
  private call = emptyCall();
  /** The smallest keys of the records and contributions the group inserted. */
  firstRecordKey: number | undefined;
  firstContributionKey: number | undefined;

  /** A record created by the running call. */
  created(r: JournalRecord): void {
    this.call.created.push(r);
  }

  /** A contribution written by the running call (`accepted` false: a later item of the call superseded it). */
  contributed(c: JournalContribution, accepted: boolean): void {
    this.call.contributions.push(c);
    this.call.accepted.push(accepted);
  }

  /** Contributions stored before the running call that it superseded, by key. */
  superseded(keys: readonly number[]): void {
    for (const k of keys) this.call.superseded.push(k);
  }

  /** The running call committed: its writes are the group's. */
  accept(): void {
    const call = this.call;
    this.call = emptyCall();
    for (const r of call.created) {
      this.context(r.contextKey).created.set(r.record.id, r);
      this.context(r.contextKey).touched.add(r.key);
      if (this.firstRecordKey === undefined || r.key < this.firstRecordKey) this.firstRecordKey = r.key;
    }
    for (const key of call.superseded) {
      const ctx = this.contextOf.get(key);
      if (ctx !== undefined) this.byContext.get(ctx)?.accepted.delete(key);
      this.contextOf.delete(key);
    }
    call.contributions.forEach((c, i) => {
      if (this.firstContributionKey === undefined || c.key < this.firstContributionKey) this.firstContributionKey = c.key;
      const ctx = this.context(c.contextKey);
      ctx.touched.add(c.recordKey);
      if (!call.accepted[i]) return;
      ctx.accepted.set(c.key, c);
      this.contextOf.set(c.key, c.contextKey);
    });
  }

  /** The running call failed: its transaction rolled back, and nothing of it counts. */
  discard(): void {
    this.call = emptyCall();
  }

  /** The contexts the group wrote into, by key. */
  contexts(): ReadonlyMap<number, JournalContext> {
    return this.byContext;
  }

  /** What the group wrote into one context, if anything. */
  get(contextKey: number): JournalContext | undefined {
    return this.byContext.get(contextKey);
  }

  private context(key: number): JournalContext {
    let ctx = this.byContext.get(key);
    if (!ctx) this.byContext.set(key, (ctx = { created: new Map(), touched: new Set(), accepted: new Map() }));
    return ctx;
  }
}
