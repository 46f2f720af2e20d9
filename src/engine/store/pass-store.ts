import type { StoredLink } from "./pass-cache.js";
import type { Sql } from "./sql.js";

/** A record a pass changed: its new resolved state. */
export interface RecordWrite {
  key: number;
  /** JSON texts, and the hex digest of `data`. */
  data: string;
  sha256: string;
  issues: string;
  lineage: string;
  /** The data changed (not only its issues or lineage): `updated_at` moves to the pass's time. */
  dataChanged: boolean;
}

/** A link a pass made, by record keys. */
export interface LinkWrite {
  contextKey: number;
  sourceKey: number;
  name: string;
  targetKey: number;
}

/** An evaluation a pass made or changed (inserted, or updated in place keeping its id). */
export interface EvaluationWrite {
  /** The id it gets if it is new. */
  id: string;
  contextKey: number;
  ruleKey: number;
  ruleVersion: number;
  outcome: boolean;
  /** JSON text. */
  trace: string;
}

/** An evaluation to delete: its rule no longer applies to its context. */
export interface EvaluationDelete {
  contextKey: number;
  ruleKey: number;
}

/** What a committed pass covered, stored on its context (see contexts.passed_version). */
export interface PassMark {
  contextKey: number;
  /** The evidence version its claim read. */
  passedVersion: number;
  passId: number;
  stamp: string;
}

/** Everything the passes of one commit change, across their contexts. */
export interface PassWrites {
  /** One per pass committed. */
  marks: PassMark[];
  records: RecordWrite[];
  /** Links to delete, by their edge (one link per edge). */
  linksGone: StoredLink[];
  linksNew: LinkWrite[];
  evaluations: EvaluationWrite[];
  evaluationsGone: EvaluationDelete[];
}

/**
 * What a pass commit asks of the store, each store its fastest way (as IngestStore for an
 * ingest): on SQLite a prepared statement per row, run synchronously inside the
 * transaction; on PostgreSQL one statement per kind of change for every row of the commit
 * (arrays unnested), issued together so the driver pipelines them. Every method runs
 * inside the commit's transaction and writes only the rows it is given.
 */
export interface PassStore {
  write(tx: Sql, writes: PassWrites, now: string): Promise<void>;
  /**
   * A commit whose every write is sent in the COMMIT's own message, with a fence that
   * locks its contexts (see LateCommit). Undefined where the transaction cannot defer
   * statements to its COMMIT (SQLite, a savepoint, a write group's call).
   */
  writeLate?(tx: Sql): LateCommit | undefined;
  /** True when `err` is a late commit's fence refusing it, or its locks not granted in time (see LateCommit.finish): it commits again the locked way. */
  isFenceFailure?(err: unknown): boolean;
}

/** A claim of a late commit, as its pass read it and the unlocked read before the commit found it. */
export interface LateClaim {
  contextKey: number;
  worker: string;
  token: number;
  /** The evidence version its pass read. */
  evidenceVersion: number;
  /** The context had no newer evidence when last read: it is to be resolved, so its version must still be the pass's. */
  resolve: boolean;
}

/**
 * A pass commit whose contexts are locked only from its COMMIT's message on, so a writer of
 * evidence into them never waits across a turn of this process (a node held to a share of
 * a core can be paused for tens of milliseconds between two writes to its socket).
 */
export interface LateCommit {
  /**
   * Defers to the COMMIT: `writes`' rows, then a fence that locks the contexts and fails
   * the transaction (see PassStore.isFenceFailure) unless every claim still stands and
   * every context to resolve still has its pass's evidence version, then the marks and
   * each context's freshness. The contexts are held only for the last of it.
   */
  finish(writes: PassWrites, claims: readonly LateClaim[], now: string): void;
}

/** Thrown inside a late commit whose unlocked read found a claim gone: its transaction rolls back, and it commits again the locked way. */
export class LateFenceLost extends Error {
  constructor() {
    super("a claim of the commit no longer stands");
  }
}
