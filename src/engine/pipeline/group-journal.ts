import type { CompiledModel } from "../models/model-types.js";
import type { ResolvedColumns } from "../store/evidence-repo.js";
import type { PassContribution, PassRecord } from "./types.js";

/** A record a write group created, as a pass sees it. */
export interface JournalRecord {
  key: number;
  contextKey: number;
  record: PassRecord;
  /**
   * Its columns, when its writer resolved it as it created it (it is stored so), with the
   * definition it was resolved with: a pass running that same definition takes it as it
   * is. Dropped when a later call of the group gives the record more evidence.
   */
  resolved?: ResolvedColumns;
  model?: CompiledModel;
  /**
   * The contributions of the call that created it were not told to the journal (it was
   * written resolved, and the tables hold them): a pass that must resolve it after all
   * reads them back.
   */
  untold?: boolean;
  /** It was written clean (see RecordInsert.clean): if no pass of the group resolves its context, it must be stamped. */
  clean?: boolean;
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
  /**
   * The group's rows are in the tables with keys above every row before it (SQLite): the
   * first keys then bound what a pass reads. Otherwise (PostgreSQL holds them until the
   * end) the tables have only the rows from before, and a read needs no bound.
   */
  constructor(readonly bounded: boolean) {}

  private readonly byContext = new Map<number, JournalContext>();
  /** The records the group created, by key. */
  private readonly createdByKey = new Map<number, JournalRecord>();
  /** Where each accepted contribution of the group is, by key (a later call may supersede it). */
  private readonly contextOf = new Map<number, number>();
  private call = emptyCall();
  /**
   * Contributions from before the group that it superseded, by key: on PostgreSQL the
   * tables still say accepted until the group's rows are copied at its end.
   */
  readonly supersededBefore = new Set<number>();
  private minRecord: number | undefined;
  private minContribution: number | undefined;

  /** The smallest key of the records the group inserted, where that bounds a read (see `bounded`). */
  get firstRecordKey(): number | undefined {
    return this.bounded ? this.minRecord : undefined;
  }

  /** The smallest key of the contributions the group inserted, where that bounds a read. */
  get firstContributionKey(): number | undefined {
    return this.bounded ? this.minContribution : undefined;
  }

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
    // Evidence for a record an earlier call created resolved: that state no longer holds.
    for (const c of call.contributions) {
      const r = this.createdByKey.get(c.recordKey);
      if (r?.resolved) {
        r.resolved = undefined;
        r.model = undefined;
      }
    }
    for (const r of call.created) {
      this.createdByKey.set(r.key, r);
      this.context(r.contextKey).created.set(r.record.id, r);
      this.context(r.contextKey).touched.add(r.key);
      if (this.minRecord === undefined || r.key < this.minRecord) this.minRecord = r.key;
    }
    for (const key of call.superseded) {
      const ctx = this.contextOf.get(key);
      if (ctx !== undefined) this.byContext.get(ctx)?.accepted.delete(key);
      else this.supersededBefore.add(key);
      this.contextOf.delete(key);
    }
    call.contributions.forEach((c, i) => {
      if (this.minContribution === undefined || c.key < this.minContribution) this.minContribution = c.key;
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

  /**
   * Keys of the records the group wrote resolved and clean (see RecordInsert.clean) that no
   * later call of it gave more evidence, in the contexts `where` picks.
   */
  cleanRecords(where: (contextKey: number) => boolean): number[] {
    const out: number[] = [];
    for (const r of this.createdByKey.values()) if (r.clean && r.resolved && where(r.contextKey)) out.push(r.key);
    return out;
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
