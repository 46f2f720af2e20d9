import type { EvaluationTrace, FieldLineage, RecordIssue, SourceType } from "../../contract/schemas/index.js";
import type { CompiledModel } from "../models/model-types.js";

/**
 * The plain data a resolution pass works on. Loaded by the store in a few queries, handed
 * to the pure stages, and turned back into rows: the stages never touch the database.
 */
export interface PassInput {
  context: { id: string; name: string | null; type: string | null; metadata: Record<string, unknown> };
  /** Compiled definitions of every model that has one (active, or archived after being active). */
  models: CompiledModel[];
  /** Live (non-deleted) records of the context. */
  records: PassRecord[];
  /** Accepted (not superseded) contributions to live records of the context. */
  contributions: PassContribution[];
  /** Links removed through the API: the pipeline must not recreate them. */
  removals: LinkRemoval[];
  /** Active rules whose contextTypes admit this context. */
  rules: PassRule[];
  /**
   * The records to resolve from their contributions (an incremental pass); the others keep
   * the state {@link before} gives them, which must be what a full pass would give them.
   * Absent: every record is resolved (a full pass).
   */
  dirty?: ReadonlySet<string>;
  /** Each record's state after the last pass, by id (clean records need one). */
  before?: ReadonlyMap<string, RecordState>;
  /**
   * What the last pass of this context left besides the states (its {@link PassOutput.memory}):
   * links, link graph and evaluations it may keep where nothing they depend on changed.
   * Optional and checked: memory of other definitions or rules is ignored.
   */
  memory?: PassMemory;
}

/**
 * What a pass keeps for the next one of its context, so that a pass costs what changed:
 * the links of each relationship, the link graph, and each evaluation with the models it
 * read. Plain data, never stored: it lives in the store's pass cache with the states.
 */
export interface PassMemory {
  /** The models the pass ran with (their identity says the definitions are the same). */
  models: readonly CompiledModel[];
  /** Each record's state after the pass, by id (the PassOutput's states). */
  states: ReadonlyMap<string, RecordState>;
  /** Live records of each model, by modelId. */
  counts: ReadonlyMap<string, number>;
  /** The removals, as JSON text. */
  removals: string;
  /** The context (id, name, type, metadata), as JSON text. */
  context: string;
  /** The links of each relationship, by relationship key (modelId, NUL, name), in the order made. */
  links: ReadonlyMap<string, readonly PassLink[]>;
  /** Every link, sorted (the PassOutput's links). */
  sorted: readonly PassLink[];
  /** The link graph's index: targets (oldest first) by relationship name, then source record id. */
  graph: ReadonlyMap<string, ReadonlyMap<string, readonly PassRecord[]>>;
  /** Records of each model oldest first, for the models the rules read. */
  ordered: ReadonlyMap<string, readonly PassRecord[]>;
  /** Each rule's evaluation, by rule id, with the rule object it evaluated and the models it read (null: anything). */
  evaluations: ReadonlyMap<string, { rule: PassRule; evaluation: PassEvaluation; reads: ReadonlySet<string> | null }>;
}

/**
 * A record as a pass left it: what its own evidence resolved to, every value once the
 * computed fields were computed, and what was stored. An incremental pass starts a clean
 * record from it instead of its contributions.
 */
export interface RecordState {
  record: PassRecord;
  /** Values of the non-computed fields, by fieldId. */
  base: Record<string, unknown>;
  /** Lineage of the non-computed fields, by name; undefined when only the stored text is known. */
  baseLineage: Record<string, FieldLineage> | undefined;
  /** Every value by fieldId, computed fields included. */
  values: Record<string, unknown>;
  data: Record<string, unknown>;
  sha256: string;
  /** JSON text, as stored. */
  issues: string;
  /** Encoded lineage (lineage-codec.ts), as stored. */
  lineage: string;
}

/** A record as the pass sees it before resolution. */
export interface PassRecord {
  id: string;
  modelId: string;
  /** Canonical JSON array of the identity values, or null for a singleton model. */
  identityKey: string | null;
  createdAt: string;
}

/** A contribution; `data` and `confidences` are keyed by fieldId (renames are free). */
export interface PassContribution {
  id: string;
  recordId: string;
  modelId: string;
  sourceId: string;
  sourceType: SourceType;
  data: Record<string, unknown>;
  confidences: Record<string, number>;
  receivedAt: string;
  observedAt: string | null;
}

/** A removed link, remembered with the identities its endpoints had when it was removed. */
export interface LinkRemoval {
  sourceRecordId: string;
  name: string;
  targetRecordId: string;
  sourceIdentity: string | null;
  targetIdentity: string | null;
}

/** A rule to evaluate in this context. */
export interface PassRule {
  id: string;
  name: string;
  version: number;
  expression: unknown;
}

/** A resolved record: data keyed by current field names. */
export interface ResolvedRecord {
  id: string;
  modelId: string;
  data: Record<string, unknown>;
  sha256: string;
  issues: RecordIssue[];
  lineage: Record<string, FieldLineage>;
}

/** A link the pass produced. */
export interface PassLink {
  sourceRecordId: string;
  name: string;
  targetRecordId: string;
  targetModelId: string;
}

/** A rule evaluation the pass produced. */
export interface PassEvaluation {
  ruleId: string;
  ruleVersion: number;
  outcome: boolean;
  trace: EvaluationTrace;
}

/** Everything a pass produces; persisted in one transaction. */
export interface PassOutput {
  /** The records built by the pass, by id: all on a full pass, the changed ones on an incremental pass. */
  records: ResolvedRecord[];
  links: readonly PassLink[];
  evaluations: PassEvaluation[];
  /** Each record's state after the pass, by id (what the next incremental pass starts from). */
  states: Map<string, RecordState>;
  /** What the next pass of the context may start from besides the states. */
  memory: PassMemory;
  /**
   * Relationship names whose links the pass kept from `input.memory` (every relationship of
   * the name untouched): they are the memory's links, which the store already holds.
   */
  keptLinks: ReadonlySet<string>;
}
