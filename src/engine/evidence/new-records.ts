import type { CompiledModel, StoredModel } from "../models/model-types.js";
import { resolveRecordAlone, resolvesAlone } from "../pipeline/stages/resolve-alone.js";
import type { PassContribution } from "../pipeline/types.js";
import { compiledModels } from "../store/compiled-models.js";
import { identityMapKey, type RecordInsert } from "../store/evidence-repo.js";
import type { Sql } from "../store/sql.js";
import { sameEvidence, type HeadEvidence } from "./head-evidence.js";


/**
 * Compiled definitions by the stored model they were read with: the model cache hands out
 * the same object while the model's row is unchanged (version, status, updatedAt), so its
 * definition is unchanged too. (Were it not, the pass would find the record resolved with
 * another definition than its own, by identity, and resolve it again.)
 */
const definitions = new WeakMap<StoredModel, CompiledModel>();

/**
 * The compiled definitions of `models`, by key: from memory while each model is the one
 * read before, otherwise in one query (compiledModels). For a writer that asks every call.
 */
export function definitionsOf(db: Sql, models: readonly StoredModel[]): Promise<Map<number, CompiledModel>> {
  const out = new Map<number, CompiledModel>();
  for (const m of models) {
    const known = definitions.get(m);
    if (!known) {
      return compiledModels(db, models.map((x) => x.key)).then((read) => {
        for (const x of models) {
          const d = read.get(x.key);
          if (d) definitions.set(x, d);
        }
        return read;
      });
    }
    out.set(m.key, known);
  }
  return Promise.resolve(out);
}

/** An item of the call bound to an identity: its source, what it says, and its contribution as a pass reads it (its recordId set here). */
export interface IdentityItem {
  sourceId: string;
  evidence: HeadEvidence;
  contribution: PassContribution;
}

/**
 * Resolves the records a call is about to create, of models whose records resolve alone
 * (resolve-alone.ts), from the call's items bound to each one's identity: of each source the
 * accepted one as the writer binds them (a later item supersedes the earlier one unless it
 * says the same, see head-evidence.ts). Sets each such row's
 * resolved columns (to be written clean: the caller runs in a write group, see
 * RecordInsert), and returns the
 * definition each was resolved with, by record id. A row
 * whose identity turns out to have a record already is not inserted: its columns are never
 * used.
 */
export async function resolveNewRecords(
  db: Sql,
  rows: readonly RecordInsert[],
  items: ReadonlyMap<string, IdentityItem[]>,
  /** The definitions of the rows' models, when the caller asked for them already (compiledModels). */
  read?: Promise<Map<number, CompiledModel>>,
): Promise<Map<string, CompiledModel>> {
  const out = new Map<string, CompiledModel>();
  if (rows.length === 0) return out;
  const models = await (read ?? compiledModels(db, [...new Set(rows.map((r) => r.modelKey))]));
  for (const row of rows) {
    const model = models.get(row.modelKey);
    const bound = items.get(identityMapKey(row));
    if (!model || !resolvesAlone(model) || !bound) continue;
    // Of each source its accepted item (the usual: the only one).
    let own: PassContribution[];
    if (bound.length === 1) own = [bound[0].contribution];
    else {
      const heads = new Map<string, IdentityItem>();
      for (const item of bound) {
        const head = heads.get(item.sourceId);
        if (!head || !sameEvidence(head.evidence, item.evidence)) heads.set(item.sourceId, item);
      }
      own = [...heads.values()].map((i) => i.contribution);
    }
    for (const c of own) c.recordId = row.id;
    row.resolved = resolveRecordAlone(model, own);
    row.clean = true;
    out.set(row.id, model);
  }
  return out;
}
