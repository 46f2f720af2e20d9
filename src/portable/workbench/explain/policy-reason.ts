/**
 * Why a resolution policy picked one candidate and not another, in words. The winner is
 * always the pipeline's own (`resolveField`); these functions only explain it, comparing
 * the way the policies of docs/pipeline.md do: the policy's preference first, then the shared
 * tie-break (higher confidence, later receivedAt, larger contributionId).
 */
import type { CompiledField } from "../../resolution/compiled-field.js";
import { compareTimes, effectiveTime, type Candidate } from "../../resolution/candidate.js";
import { formatTraceValue } from "../trace/trace-value.js";
import { stableJson } from "../trace/expect-values.js";
import { maxOf } from "../../arrays.js";

const when = (c: Candidate) => (c.observedAt ? `observedAt ${c.observedAt}` : `receivedAt ${c.receivedAt} (no observedAt)`);
const num = (n: number) => String(Number(n.toFixed(6)));

function orderKey(value: unknown, type: string): number | undefined {
  if (type === "date" || type === "datetime") {
    const t = typeof value === "string" ? Date.parse(value) : NaN;
    return Number.isFinite(t) ? t : undefined;
  }
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

const rankOf = (field: CompiledField, c: Candidate) => {
  const list = field.resolution.sourcePriority ?? [];
  const i = list.indexOf(c.sourceType);
  return i === -1 ? list.length : i;
};

/** The policy's own preference between a and b (negative: a preferred; 0: no preference). */
function policyOrder(field: CompiledField, a: Candidate, b: Candidate): number {
  switch (field.resolution.policy) {
    case "latest":
      return compareTimes(effectiveTime(b), effectiveTime(a));
    case "earliest":
      return compareTimes(effectiveTime(a), effectiveTime(b));
    case "source_priority":
      return rankOf(field, a) - rankOf(field, b);
    case "min":
    case "max": {
      const ka = orderKey(a.value, field.type);
      const kb = orderKey(b.value, field.type);
      if (ka === undefined || kb === undefined) return (ka === undefined ? 1 : 0) - (kb === undefined ? 1 : 0);
      return (field.resolution.policy === "min" ? 1 : -1) * Math.sign(ka - kb);
    }
    default:
      return 0;
  }
}

/** Which tie-break criterion puts `w` before `l`. */
function tieBreak(w: Candidate, l: Candidate): string {
  if (w.confidence !== l.confidence) return `higher confidence ${w.confidence} > ${l.confidence}`;
  if (compareTimes(w.receivedAt, l.receivedAt) !== 0) return "later receivedAt";
  return "larger contributionId";
}

/** Summed confidence per value (canonical JSON), for `majority`. */
export function majoritySums(kept: readonly Candidate[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const c of kept) sums.set(stableJson(c.value), (sums.get(stableJson(c.value)) ?? 0) + c.confidence);
  return sums;
}

/** Why the winner won among the kept candidates. */
export function winnerReason(field: CompiledField, w: Candidate, kept: readonly Candidate[]): string {
  const others = kept.filter((c) => c !== w);
  if (others.length === 0) return "the only candidate";
  const policy = field.resolution.policy;
  if (policy === "majority") {
    const sums = majoritySums(kept);
    const mine = sums.get(stableJson(w.value)) ?? 0;
    const rest = [...sums.entries()].filter(([k]) => k !== stableJson(w.value)).map(([, s]) => s);
    const runnerUp = rest.length ? ` (next: ${num(maxOf(rest))})` : "";
    return `majority: summed confidence ${num(mine)} for ${formatTraceValue(w.value)}${runnerUp}`;
  }
  let base: string;
  if (policy === "latest" || policy === "earliest") base = `${policy} ${when(w)}`;
  else if (policy === "min" || policy === "max") base = `${policy === "min" ? "lowest" : "highest"} value ${formatTraceValue(w.value)}`;
  else if (policy === "source_priority") {
    const next = others.filter((o) => o.sourceType !== w.sourceType).sort((a, b) => rankOf(field, a) - rankOf(field, b))[0];
    base = next ? `source priority: ${w.sourceType} before ${next.sourceType}` : `source priority: ${w.sourceType} (the only source type)`;
  } else base = `highest confidence ${w.confidence}`;
  const tied = others.filter((o) => policyOrder(field, w, o) === 0 && (policy !== "highest_confidence" || o.confidence === w.confidence));
  return tied.length > 0 ? `${base}; tie broken by ${tieBreak(w, tied[0])}` : base;
}

/** Why a kept candidate lost to the winner. */
export function loserReason(field: CompiledField, l: Candidate, w: Candidate, kept: readonly Candidate[]): string {
  if (field.resolution.policy === "majority") {
    if (stableJson(l.value) === stableJson(w.value)) return "same value as the winner: counted in its sum";
    const sums = majoritySums(kept);
    const mine = sums.get(stableJson(l.value)) ?? 0;
    const theirs = sums.get(stableJson(w.value)) ?? 0;
    return `value ${formatTraceValue(l.value)}: summed confidence ${num(mine)} ${mine < theirs ? "<" : "="} ${num(theirs)}${mine < theirs ? "" : " (lost the tie-break)"}`;
  }
  if (policyOrder(field, w, l) < 0) {
    switch (field.resolution.policy) {
      case "latest":
        return `older ${when(l)}`;
      case "earliest":
        return `later ${when(l)}`;
      case "source_priority":
        return rankOf(field, l) >= (field.resolution.sourcePriority ?? []).length
          ? `source priority: ${l.sourceType} is not listed`
          : `source priority: ${l.sourceType} after ${w.sourceType}`;
      default:
        return `${field.resolution.policy === "min" ? "higher" : "lower"} value ${formatTraceValue(l.value)}`;
    }
  }
  if (l.confidence !== w.confidence) return `lower confidence ${l.confidence} < ${w.confidence}`;
  if (compareTimes(w.receivedAt, l.receivedAt) !== 0) return `same confidence, received earlier (${l.receivedAt})`;
  return "same confidence and receivedAt, smaller contributionId";
}
