import type { CompiledModel } from "../models/model-types.js";
import { resolveAlone, resolvesAlone } from "../pipeline/stages/resolve-alone.js";
import type { PassContribution, PassRecord } from "../pipeline/types.js";
import { compiledModels } from "../store/compiled-models.js";
import { identityMapKey, type RecordInsert } from "../store/evidence-repo.js";
import type { Sql } from "../store/sql.js";


/** An item of the call bound to an identity: its source and its contribution as a pass reads it. */
export interface IdentityItem {
  sourceId: string;
  contribution: Omit<PassContribution, "recordId">;
}

/**
 * Resolves the records a call is about to create, of models whose records resolve alone
 * (resolve-alone.ts), from the call's items bound to each one's identity: of each source the
 * last item (a later item of one source supersedes the earlier one). Sets each such row's
 * resolved columns (`clean`: to be written clean, see RecordInsert), and returns the
 * definition each was resolved with, by record id. A row
 * whose identity turns out to have a record already is not inserted: its columns are never
 * used.
 */
export async function resolveNewRecords(
  db: Sql,
  rows: readonly RecordInsert[],
  items: ReadonlyMap<string, IdentityItem[]>,
  now: string,
  clean: boolean,
): Promise<Map<string, CompiledModel>> {
  const out = new Map<string, CompiledModel>();
  if (rows.length === 0) return out;
  const models = await compiledModels(db, [...new Set(rows.map((r) => r.modelKey))]);
  const records: PassRecord[] = [];
  const contributions: PassContribution[] = [];
  const modelOf = new Map<string, CompiledModel>();
  for (const row of rows) {
    const model = models.get(row.modelKey);
    const bound = items.get(identityMapKey(row));
    if (!model || !resolvesAlone(model) || !bound) continue;
    records.push({ id: row.id, modelId: model.modelId, identityKey: row.identityKey, createdAt: now });
    modelOf.set(row.id, model);
    const heads = new Map<string, Omit<PassContribution, "recordId">>();
    for (const item of bound) heads.set(item.sourceId, item.contribution);
    for (const c of heads.values()) contributions.push({ ...c, recordId: row.id });
  }
  if (records.length === 0) return out;
  const states = resolveAlone([...new Set(modelOf.values())], records, contributions);
  for (const row of rows) {
    const state = states.get(row.id);
    if (!state) continue;
    row.resolved = { data: JSON.stringify(state.data), sha256: state.sha256, issues: state.issues, lineage: state.lineage };
    if (clean) row.clean = true;
    out.set(row.id, modelOf.get(row.id)!);
  }
  return out;
}
