import type { PassMemory, RecordState } from "../pipeline/types.js";
import type { Sql } from "./sql.js";

/** A link of a context, by record keys. */
export interface StoredLink {
  sourceKey: number;
  name: string;
  targetKey: number;
}

/** An evaluation of a context as stored. */
export interface StoredEvaluation {
  ruleKey: number;
  id: string;
  outcome: boolean;
  trace: string;
  ruleVersion: number;
}

/**
 * What a context holds after a pass this process committed: every live record's state
 * (with its key), its links and its evaluations. The next pass of the context starts from
 * it instead of reading the context back, as long as the context still carries the pass's
 * id (no other pass committed since: a rolled-back group, another node or process) and the
 * definitions are those it was resolved with; records changed since are read as dirty.
 */
export interface CachedContext {
  passId: number;
  stamp: string;
  /** Live records by id, with their keys. */
  records: Map<string, { key: number; state: RecordState }>;
  links: StoredLink[];
  /** By rule id. */
  evaluations: Map<string, StoredEvaluation>;
  /** What the pass left for the next one besides the states (links by relationship, evaluations with what they read); none after a write group's pass. */
  memory?: PassMemory;
}

/**
 * Contexts kept, by key, least recently used first out, within a budget of records (a
 * record's state is a few hundred bytes: the default keeps the cache to tens of MB). A
 * context larger than the budget is not kept at all.
 */
export class PassCache {
  private readonly contexts = new Map<number, CachedContext>();
  private size = 0;

  constructor(readonly maxRecords = 20_000) {}

  /** The context's entry, if kept and still good for a pass of `passId` and `stamp`. */
  take(contextKey: number, passId: number | null, stamp: string): CachedContext | undefined {
    const entry = this.contexts.get(contextKey);
    if (!entry) return undefined;
    this.drop(contextKey);
    if (passId === null || entry.passId !== passId || entry.stamp !== stamp) return undefined;
    return entry;
  }

  /** Keeps a context's state after a committed pass. */
  put(contextKey: number, entry: CachedContext): void {
    this.drop(contextKey);
    if (entry.records.size > this.maxRecords) return;
    this.contexts.set(contextKey, entry);
    this.size += entry.records.size;
    for (const key of this.contexts.keys()) {
      if (this.size <= this.maxRecords) break;
      this.drop(key);
    }
  }

  /**
   * Keys of up to `limit` contexts kept, the most recently kept first. Asked by every claim
   * beside other nodes: the older keys (up to the budget's 20,000 contexts) are stepped over,
   * not copied.
   */
  recentKeys(limit: number): number[] {
    const out: number[] = [];
    let skip = this.contexts.size - limit;
    for (const key of this.contexts.keys()) if (skip-- <= 0) out.push(key);
    return out.reverse();
  }

  /** Forgets a context (its pass failed, or its entry was taken). */
  drop(contextKey: number): void {
    const entry = this.contexts.get(contextKey);
    if (!entry) return;
    this.contexts.delete(contextKey);
    this.size -= entry.records.size;
  }

  /** Forgets everything (tests; a store that lost track). */
  clear(): void {
    this.contexts.clear();
    this.size = 0;
  }
}

const MEMO = "pass-cache";

/** The store's pass cache (one per open store, shared by its workers and write groups). */
export function passCacheOf(db: Sql): PassCache {
  let cache = db.memo.get(MEMO) as PassCache | undefined;
  if (!cache) db.memo.set(MEMO, (cache = new PassCache()));
  return cache;
}
