/**
 * Resolution of one field: the seven policies of docs/pipeline.md over the contributed
 * candidates. Each policy only says what it prefers; every tie then falls through to the
 * shared tie-break order, so the winner never depends on the order candidates arrive in.
 */
import type { FieldLineage, FieldType } from "../../contract/schemas/index.js";
import type { CompiledField } from "./compiled-field.js";
import { compareByTieBreak, compareTimes, effectiveTime, pickBest, type Candidate } from "./candidate.js";
import { canonicalJson } from "./canonical-json.js";

/** A resolved field value and how it was chosen. */
export interface FieldResolutionResult {
  value: unknown;
  lineage: FieldLineage;
}

type Compare = (a: Candidate, b: Candidate) => number;

/** Sums closer than this are equal: 0.1 + 0.2 and 0.3 should tie, not depend on rounding. */
const SUM_EPSILON = 1e-9;

/**
 * The sort key of a value for `min`/`max`: numbers for number/integer fields, epoch
 * milliseconds for date/datetime fields; undefined for a value that cannot be ordered
 * (null, or a value of the wrong type after a definition change).
 */
function orderKey(value: unknown, type: FieldType): number | undefined {
  if (type === "date" || type === "datetime") {
    if (typeof value !== "string") return undefined;
    const t = Date.parse(value);
    return Number.isFinite(t) ? t : undefined;
  }
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * `min`/`max`: orderable values first, by value; unorderable ones (null included) after
 * all of them, so they win only when nothing else is there.
 */
function byValue(type: FieldType, direction: 1 | -1): Compare {
  return (a, b) => {
    const ka = orderKey(a.value, type);
    const kb = orderKey(b.value, type);
    if (ka === undefined || kb === undefined) return (ka === undefined ? 1 : 0) - (kb === undefined ? 1 : 0);
    return direction * Math.sign(ka - kb);
  };
}

/** `source_priority`: listed sourceTypes in list order, unlisted ones after all of them. */
function bySourcePriority(priority: readonly string[]): Compare {
  const rank = (c: Candidate) => {
    const i = priority.indexOf(c.sourceType);
    return i === -1 ? priority.length : i;
  };
  return (a, b) => rank(a) - rank(b);
}

/** What a policy prefers before the tie-break; 0 = no preference (`highest_confidence`). */
function primaryOrder(field: CompiledField): Compare {
  switch (field.resolution.policy) {
    case "latest":
      return (a, b) => compareTimes(effectiveTime(b), effectiveTime(a));
    case "earliest":
      return (a, b) => compareTimes(effectiveTime(a), effectiveTime(b));
    case "source_priority":
      return bySourcePriority(field.resolution.sourcePriority ?? []);
    case "min":
      return byValue(field.type, 1);
    case "max":
      return byValue(field.type, -1);
    default:
      return () => 0;
  }
}

/**
 * `majority`: the value with the largest summed confidence. Candidates are summed in
 * tie-break order (float addition is not associative, so a fixed order keeps the sums
 * reproducible); equal sums go to the value whose best candidate wins the tie-break, and
 * that candidate is the one lineage names.
 */
function majorityWinner(candidates: readonly Candidate[]): Candidate {
  const sorted = [...candidates].sort(compareByTieBreak);
  const groups = new Map<string, { sum: number; best: Candidate }>();
  for (const c of sorted) {
    const key = canonicalJson(c.value);
    const group = groups.get(key);
    if (group) group.sum += c.confidence;
    else groups.set(key, { sum: c.confidence, best: c });
  }
  let winner: { sum: number; best: Candidate } | undefined;
  // Groups were created in tie-break order of their best candidates, so on equal sums the
  // first one seen is the one the tie-break prefers.
  for (const group of groups.values()) if (!winner || group.sum > winner.sum + SUM_EPSILON) winner = group;
  return winner!.best;
}

/**
 * Resolves one (non-computed) field from its candidates by the field's policy. Candidates
 * with confidence below `minConfidence` are ignored (equal is kept). A `null` value is a
 * candidate like any other: if it wins, the field is null (under `min`/`max` it ranks
 * after every orderable value). Returns undefined when no candidate remains.
 */
export function resolveField(field: CompiledField, candidates: readonly Candidate[]): FieldResolutionResult | undefined {
  const minConfidence = field.resolution.minConfidence;
  // One candidate (a new record's only contribution, the common case) wins unless it is
  // ignored: no filtering, ordering or sums to do.
  const kept = candidates.length === 1 ? (candidates[0].confidence >= minConfidence ? candidates : []) : candidates.filter((c) => c.confidence >= minConfidence);
  if (kept.length === 0) return undefined;
  let winner: Candidate;
  if (kept.length === 1) {
    winner = kept[0];
  } else if (field.resolution.policy === "majority") {
    winner = majorityWinner(kept);
  } else {
    const primary = primaryOrder(field);
    winner = pickBest(kept, (a, b) => primary(a, b) || compareByTieBreak(a, b))!;
  }
  return {
    value: winner.value,
    lineage: {
      contributionId: winner.contributionId,
      sourceId: winner.sourceId,
      sourceType: winner.sourceType,
      confidence: winner.confidence,
      policy: field.resolution.policy,
      candidates: kept.length,
    },
  };
}
