import type { PassOutput } from "../pipeline/types.js";
import { newId } from "../../util/ids.js";
import { encodeLineage } from "./lineage-codec.js";
import type { LoadedPass } from "./pass-load.js";
import type { PassWrites } from "./pass-store.js";

/** An evaluation whose outcome the pass flipped (an `evaluation.changed` event). */
export interface ChangedOutcome {
  ruleId: string;
  outcome: boolean;
  /** The evaluation's id (it existed before: its outcome flipped). */
  evaluationId: string;
  ruleName: string;
}

/** What one pass changes in the store, and the outcomes it flipped. */
export interface PassChanges {
  writes: PassWrites;
  changedOutcomes: ChangedOutcome[];
}

/** An empty set of writes. */
export const noWrites = (): PassWrites => ({ records: [], linksGone: [], linksNew: [], evaluations: [], evaluationsGone: [] });

/** Appends `from`'s writes to `into` (the passes of one commit write together). */
export function addWrites(into: PassWrites, from: PassWrites): void {
  into.records.push(...from.records);
  into.linksGone.push(...from.linksGone);
  into.linksNew.push(...from.linksNew);
  into.evaluations.push(...from.evaluations);
  into.evaluationsGone.push(...from.evaluationsGone);
}

/**
 * What a pass changed against what the store held when its input was read (pure): the
 * records whose digest, issues or lineage differ, the links made and gone, the evaluations
 * whose outcome, version or trace differ and those of rules that no longer apply. A record,
 * link or evaluation the pass left as it was is not written at all, so its row (its
 * `updated_at`, its row version) stays as it was. Records created after the input was read
 * are left to the next pass (the context is stale again by then).
 */
export function passChanges(loaded: LoadedPass, output: PassOutput): PassChanges {
  const writes = noWrites();
  for (const r of output.records) {
    const before = loaded.records.get(r.id);
    if (!before) continue;
    const issues = JSON.stringify(r.issues);
    const lineage = encodeLineage(r.lineage);
    const sameData = before.sha256 !== null && before.sha256 === r.sha256;
    if (sameData && before.issues === issues && before.lineage === lineage) continue;
    writes.records.push({ key: before.key, data: JSON.stringify(r.data), sha256: r.sha256, issues, lineage, dataChanged: !sameData });
  }

  const edge = (s: number, n: string, t: number) => `${s}\u0000${n}\u0000${t}`;
  const wanted = new Map<string, { s: number; n: string; t: number }>();
  for (const l of output.links) {
    const s = loaded.records.get(l.sourceRecordId)?.key;
    const t = loaded.records.get(l.targetRecordId)?.key;
    if (s !== undefined && t !== undefined) wanted.set(edge(s, l.name, t), { s, n: l.name, t });
  }
  for (const e of loaded.links) {
    const k = edge(e.sourceKey, e.name, e.targetKey);
    if (wanted.has(k)) wanted.delete(k);
    else writes.linksGone.push(e.id);
  }
  for (const l of wanted.values()) writes.linksNew.push({ contextKey: loaded.contextKey, sourceKey: l.s, name: l.n, targetKey: l.t });

  const names = new Map(loaded.input.rules.map((r) => [r.id, r.name]));
  const stale = new Map(loaded.evaluations);
  const changedOutcomes: ChangedOutcome[] = [];
  for (const e of output.evaluations) {
    const before = stale.get(e.ruleId);
    stale.delete(e.ruleId);
    const ruleKey = loaded.rules.get(e.ruleId);
    if (ruleKey === undefined) continue;
    const trace = JSON.stringify(e.trace);
    if (before && before.trace === trace && before.ruleVersion === e.ruleVersion && before.outcome === e.outcome) continue;
    if (before && before.outcome !== e.outcome) changedOutcomes.push({ ruleId: e.ruleId, outcome: e.outcome, evaluationId: before.id, ruleName: names.get(e.ruleId) ?? "" });
    writes.evaluations.push({ id: newId(), contextKey: loaded.contextKey, ruleKey, ruleVersion: e.ruleVersion, outcome: e.outcome, trace });
  }
  // Rules that no longer apply (inactive, deleted, contextTypes changed) lose their evaluation.
  for (const gone of stale.values()) writes.evaluationsGone.push({ contextKey: loaded.contextKey, ruleKey: gone.ruleKey });
  return { writes, changedOutcomes };
}
