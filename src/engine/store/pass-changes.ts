import type { PassEvaluation, PassOutput } from "../pipeline/types.js";
import { newId } from "../../util/ids.js";
import type { CachedContext, StoredEvaluation, StoredLink } from "./pass-cache.js";
import type { LoadedPass } from "./pass-load.js";
import type { PassWrites } from "./pass-store.js";
import { sameLineage } from "./lineage-codec.js";

/** Each evaluation's trace as stored: an evaluation a pass kept from the last one is not stringified again. */
const traces = new WeakMap<PassEvaluation, string>();
function traceText(e: PassEvaluation): string {
  let text = traces.get(e);
  if (text === undefined) traces.set(e, (text = JSON.stringify(e.trace)));
  return text;
}

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
  /** The stamp of the definitions the pass resolved with (stored on its context). */
  stamp: string;
  /** The pass's own id, stored on its context: its copy of the state stays good while the context carries it. */
  passId: number;
  /** The context's state once the pass is committed (kept by the store's pass cache); not for a `local` pass, which sees only the changed records. */
  after: CachedContext | undefined;
}

/** An empty set of writes. */
export const noWrites = (): PassWrites => ({ marks: [], records: [], linksGone: [], linksNew: [], evaluations: [], evaluationsGone: [] });

/** Appends `from`'s writes to `into` (the passes of one commit write together). */
export function addWrites(into: PassWrites, from: PassWrites): void {
  for (const key of ["marks", "records", "linksGone", "linksNew", "evaluations", "evaluationsGone"] as const) {
    const target = into[key] as unknown[];
    for (const item of from[key]) target.push(item);
  }
}

/** A pass's id: random, so that a pass rolled back with its write group never passes for a later one. */
const newPassId = () => Math.floor(Math.random() * 2 ** 48) + 1;

/**
 * What a pass changed against what the store held when its input was read (pure): the
 * records it built whose digest, issues or lineage differ, the links made and gone, the
 * evaluations whose outcome, version or trace differ and those of rules that no longer
 * apply. A record, link or evaluation the pass left as it was is not written at all, so its
 * row (its `updated_at`) stays as it was. Records created after the input was read are
 * left to the next pass (the context is stale again by then).
 */
export function passChanges(loaded: LoadedPass, output: PassOutput): PassChanges {
  const writes = noWrites();
  for (const r of output.records) {
    const before = loaded.records.get(r.id);
    const state = output.states.get(r.id);
    if (!before || !state) continue;
    const sameData = before.sha256 !== null && before.sha256 === r.sha256;
    if (sameData && before.issues === state.issues && sameLineage(before.lineage, state.lineage)) continue;
    writes.records.push({ key: before.key, data: JSON.stringify(r.data), sha256: r.sha256, issues: state.issues, lineage: state.lineage, dataChanged: !sameData });
  }

  // The links the pass wants, by source key, name and target key (no key string built per
  // link: a pass over a context of 2,000 records compares every one of its links), and in
  // the order first wanted; those the store held already are not written again.
  // A warm pass's relationship names whose links it kept from the last pass hold the
  // stored links of that pass (the cache's): they are neither compared nor written.
  const keptLinks = loaded.mode === "warm" ? output.keptLinks : new Set<string>();
  const wanted = new Map<number, Map<string, Map<number, StoredLink>>>();
  const linksAfter: StoredLink[] = [];
  const find = (s: number, n: string, t: number) => wanted.get(s)?.get(n)?.get(t);
  for (const l of output.links) {
    if (keptLinks.has(l.name)) continue;
    const s = loaded.records.get(l.sourceRecordId)?.key;
    const t = loaded.records.get(l.targetRecordId)?.key;
    if (s === undefined || t === undefined || find(s, l.name, t)) continue;
    let byName = wanted.get(s);
    if (!byName) wanted.set(s, (byName = new Map()));
    let byTarget = byName.get(l.name);
    if (!byTarget) byName.set(l.name, (byTarget = new Map()));
    const link: StoredLink = { sourceKey: s, name: l.name, targetKey: t };
    byTarget.set(t, link);
    linksAfter.push(link);
  }
  const kept = new Set<StoredLink>();
  for (const e of loaded.links) {
    if (keptLinks.has(e.name)) {
      linksAfter.push(e);
      continue;
    }
    const link = find(e.sourceKey, e.name, e.targetKey);
    if (link && !kept.has(link)) kept.add(link);
    else writes.linksGone.push(e);
  }
  for (const l of linksAfter) if (!kept.has(l)) writes.linksNew.push({ contextKey: loaded.contextKey, ...l });

  const names = new Map(loaded.input.rules.map((r) => [r.id, r.name]));
  const stale = new Map(loaded.evaluations);
  const changedOutcomes: ChangedOutcome[] = [];
  const evaluationsAfter = new Map<string, StoredEvaluation>();
  for (const e of output.evaluations) {
    const before = stale.get(e.ruleId);
    stale.delete(e.ruleId);
    const ruleKey = loaded.rules.get(e.ruleId);
    if (ruleKey === undefined) continue;
    const trace = traceText(e);
    if (before && before.trace === trace && before.ruleVersion === e.ruleVersion && before.outcome === e.outcome) {
      evaluationsAfter.set(e.ruleId, before);
      continue;
    }
    if (before && before.outcome !== e.outcome) changedOutcomes.push({ ruleId: e.ruleId, outcome: e.outcome, evaluationId: before.id, ruleName: names.get(e.ruleId) ?? "" });
    // An evaluation updated in place keeps its id (the upsert keeps the row).
    const id = before?.id ?? newId();
    writes.evaluations.push({ id, contextKey: loaded.contextKey, ruleKey, ruleVersion: e.ruleVersion, outcome: e.outcome, trace });
    evaluationsAfter.set(e.ruleId, { ruleKey, id, outcome: e.outcome, trace, ruleVersion: e.ruleVersion });
  }
  // Rules that no longer apply (inactive, deleted, contextTypes changed) lose their evaluation.
  for (const gone of stale.values()) writes.evaluationsGone.push({ contextKey: loaded.contextKey, ruleKey: gone.ruleKey });

  const records: CachedContext["records"] = new Map();
  for (const [id, state] of output.states) {
    const key = loaded.records.get(id)?.key;
    if (key !== undefined) records.set(id, { key, state });
  }
  const passId = newPassId();
  const after = loaded.keep && loaded.mode !== "local" ? { passId, stamp: loaded.stamp, records, links: linksAfter, evaluations: evaluationsAfter, ...(loaded.inGroup ? {} : { memory: output.memory }) } : undefined;
  return { writes, changedOutcomes, stamp: loaded.stamp, passId, after };
}
