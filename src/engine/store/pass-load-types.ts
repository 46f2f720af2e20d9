// The shapes of what loadPasses (pass-load.ts) reads for a pass.
import type { GroupJournal } from "../pipeline/group-journal.js";
import type { PassInput } from "../pipeline/types.js";
import type { StoredEvaluation, StoredLink } from "./pass-cache.js";

/** What a record held before the pass: the pass writes only the records it changes. */
export interface StoredRecord {
  key: number;
  sha256: string | null;
  issues: string | null;
  lineage: string | null;
}

/**
 * How a pass reads its context:
 * - `full`: every record from its contributions (the definitions changed since the last
 *   pass, or the context was never passed);
 * - `warm`: this process's copy of the state its last pass left, plus the records changed
 *   since (read with their contributions);
 * - `cold`: the stored state of every record, plus the changed records' contributions;
 * - `local`: only the changed records, where nothing links records, computes over them or
 *   reads them together (no relationships, no computed fields, no rule applies): each
 *   record's outcome depends on its own evidence alone.
 */
export type PassMode = "full" | "warm" | "cold" | "local";

/**
 * A pass's input and what the store holds of its output already: the keys of what the
 * input names (the pure stages see only ids), and the records, links and evaluations as
 * they are, so the commit writes only what the pass changed.
 */
export interface LoadedPass {
  input: PassInput;
  contextKey: number;
  mode: PassMode;
  /** Whether the pass's outcome is worth keeping for the next pass (records that depend on each other). */
  keep: boolean;
  /**
   * A write group's pass: it neither starts from nor leaves a pass memory. Its input is
   * mostly records the group just wrote, so the memory would keep little, and the group
   * holds every pass's output until its commit (measured: an import's peak RSS 143–145 MiB
   * without, 156–164 MiB with).
   */
  inGroup: boolean;
  /** The stamp of the definitions the pass resolves with (stored with its commit). */
  stamp: string;
  /** The records the input names, with what is stored of them. */
  records: Map<string, StoredRecord>;
  /** The keys of the rules that apply, by rule id. */
  rules: Map<string, number>;
  links: StoredLink[];
  /** By rule id. */
  evaluations: Map<string, StoredEvaluation>;
}

/** Options of {@link loadPasses}. */
export interface LoadOptions {
  /**
   * Reads only what changed since each context's last pass (the default for a pass); false
   * reads every record from its contributions, as a full pass does (a dry run).
   */
  incremental?: boolean;
  /**
   * Passes run as a write group ends: what the group wrote comes from its journal, never
   * read back, and a context whose pass would cost far more than what the group wrote into
   * it (a large context that needs all its records read, given a few) is left out, for a
   * later pass.
   */
  journal?: GroupJournal;
}
