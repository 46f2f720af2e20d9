// The shapes of an ingest writer: what it needs, what it offers, and what it keeps per item.
import type { DdsError } from "../../contract/errors.js";
import type { Contribution, ContributionCreate, SourceType } from "../../contract/schemas/index.js";
import type { Scope } from "../engine-context.js";
import type { StoredModel } from "../models/model-types.js";
import type { GroupJournal } from "../pipeline/group-journal.js";
import type { ContextState } from "../store/context-repo.js";
import type { ContributionInsert, IngestStore, RecordInsert, SourceHead } from "../store/evidence-repo.js";
import type { ReplayRepo } from "../store/idempotency-repo.js";
import type { HeadEvidence } from "./head-evidence.js";
import type { ModelCache } from "./model-cache.js";

/** What ingest needs beyond a scope: engine-wide caches and the store's lookups. */
export interface IngestDeps {
  models: ModelCache;
  /** Exactly-once keyed calls (one per engine: codecs registered here serve every door). */
  replay: ReplayRepo;
  ingest: IngestStore;
  /**
   * Marks contexts stale (evidence arrived), by key, and the records whose evidence changed,
   * inside the caller's transaction; `held`: that transaction holds the contexts (at least
   * FOR KEY SHARE) until it ends (see Store.markStaleAtCommit).
   */
  markStale(s: Scope, contextKeys: Iterable<number>, recordKeys?: Iterable<number>, held?: boolean): Promise<void>;
  /** Starts what markStale will read first (sent with the writer's first reads, one round trip for both). */
  prepareStale?(s: Scope): void;
  /** The open write group's journal, if a group is open: what a call writes is told to it. */
  journal?: () => GroupJournal | undefined;
}

/** The accepted contribution of one source to one record, as the writer knows it: stored, or made by this writer. */
export interface Head extends Omit<SourceHead, "key"> {
  /** Its key once stored. */
  key?: number;
  /** Set while the contribution is still waiting in this writer (not written yet). */
  pending?: ContributionInsert;
}

/** A record a contribution binds to: stored (with its key) or created by this writer. */
export interface Bound {
  id: string;
  key?: number;
  created?: RecordInsert;
  /** Stored by this writer (insertOrFindRecords): no contribution came before. */
  fresh?: boolean;
}

/** An item that passed every check, waiting to be bound to its record. */
export interface Checked {
  input: ContributionCreate;
  model: StoredModel;
  context: ContextState;
  data: Record<string, unknown>;
  confidences: Record<string, number>;
  confidencesByName: Record<string, number>;
  /** The explicit record, or undefined when bound by identity. */
  recordId: string | undefined;
  key: string | undefined;
  /** The id its contribution gets, and its bytes (made at check: a record resolved as it is created names it in its lineage). */
  id: string;
  idBytes: Buffer;
  /** What it says, as stored (compared with the accepted contribution of its source). */
  evidence: HeadEvidence;
}

/** Writes the contributions of one transaction; see {@link createIngestWriter}. */
export interface IngestWriter {
  /**
   * Validates contributions and binds them (by recordId, identity values, or the singleton
   * rule), planning the records to create and the earlier contributions of the same
   * sources to supersede. Each item gets its contribution as the API shows it on creation,
   * or the DdsError that makes it invalid (an invalid item changes nothing, so a bulk item
   * needs no savepoint). The lookups are made for all items at once: a few queries per
   * call, not a few per item.
   */
  addAll(bodies: readonly unknown[], options?: { sourceTypeOverride?: SourceType; jsonChecked?: boolean }): Promise<(Contribution | DdsError)[]>;
  /**
   * Parses `bodies` and starts reading what they name (models, contexts, explicit records)
   * without waiting: the next `addAll` of the same array takes that over. Lets a caller put
   * those reads on the wire behind its own (a keyed call's key lock and lookup): one round
   * trip on PostgreSQL instead of two.
   */
  prepare(bodies: readonly unknown[], options?: { jsonChecked?: boolean }): void;
  /** Writes everything added so far (records, supersessions, contributions, staleness). */
  flush(): Promise<void>;
  /** The store's keys of every contribution written so far, in the order they were added. */
  writtenKeys(): number[];
}

/** Options of an ingest writer. */
export interface IngestWriterOptions {
  /**
   * Evidence equal to the accepted contribution of its source (see head-evidence.ts) is
   * answered with that one and stores nothing (default true); a record update, an explicit
   * edit, is stored whatever it says.
   */
  unchanged?: boolean;
}
