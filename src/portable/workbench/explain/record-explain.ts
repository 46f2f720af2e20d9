/**
 * `records explain`: every candidate value of every field of a record, and why the
 * field's policy picked the one it did. Candidates are rebuilt from the record's
 * contributions exactly as the pipeline builds them (accepted contributions whose data
 * has the field; missing confidences are 1.0), and the winner is recomputed with the
 * pipeline's own `resolveField`, so the explanation matches what resolution does.
 */
import type { Contribution, DdsRecord, Field, FieldLineage } from "../../../contract/schemas/index.js";
import type { CompiledField } from "../../resolution/compiled-field.js";
import type { Candidate } from "../../resolution/candidate.js";
import { resolveField } from "../../resolution/resolve-field.js";
import { computedDependencies, type InputDependency } from "../trace/input-sources.js";
import type { LineageReader } from "../trace/lineage-reader.js";
import { loserReason, winnerReason } from "./policy-reason.js";

/** One contribution's part in a field's resolution. */
export interface CandidateExplanation {
  contributionId: string;
  sourceId: string;
  sourceType: string;
  value: unknown;
  confidence: number;
  receivedAt: string;
  observedAt: string | null;
  status: "accepted" | "superseded";
  /** True when it competed (accepted, and at or above minConfidence). */
  candidate: boolean;
  picked: boolean;
  reason: string;
}

/** One field explained. */
export interface FieldEvidence {
  field: string;
  type: string;
  value: unknown;
  policy: string;
  minConfidence?: number;
  sourcePriority?: string[];
  /** The winner recomputed from the contributions (null: no candidate). */
  winner: string | null;
  /** What the record's lineage names; differs from `winner` only while the record is stale. */
  lineage: FieldLineage | null;
  candidates: CandidateExplanation[];
  /** For a computed field: its expression and the values it read. */
  computed?: { expression: unknown; reads: InputDependency[] };
}

/** `records explain --json`. */
export interface RecordExplanation {
  recordId: string;
  modelId: string;
  model: string;
  contextId: string;
  freshness: string;
  fields: FieldEvidence[];
}

/** A field as resolution sees it: defaults filled in (policy highest_confidence, minConfidence 0). */
export function compiledFieldOf(f: Field): CompiledField {
  const r = f.resolution ?? { policy: "highest_confidence" };
  return {
    fieldId: f.fieldId,
    name: f.name,
    type: f.type,
    required: f.required,
    validation: f.validation,
    resolution: { policy: r.policy ?? "highest_confidence", minConfidence: r.minConfidence ?? 0, sourcePriority: r.sourcePriority },
    computed: null,
  };
}

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Explains one non-computed field from the record's contributions. Pure. */
export function explainContributedField(f: Field, value: unknown, contributions: readonly Contribution[], lineage: FieldLineage | null): FieldEvidence {
  const field = compiledFieldOf(f);
  const touching = contributions.filter((c) => has(c.data, f.name) && c.data[f.name] !== undefined);
  const asCandidate = (c: Contribution): Candidate => ({
    contributionId: c.contributionId,
    sourceId: c.sourceId,
    sourceType: c.sourceType,
    value: c.data[f.name],
    confidence: typeof c.fieldConfidences[f.name] === "number" ? c.fieldConfidences[f.name] : 1,
    receivedAt: c.receivedAt,
    observedAt: c.observedAt,
  });
  const accepted = touching.filter((c) => c.status === "accepted").map(asCandidate);
  const kept = accepted.filter((c) => c.confidence >= field.resolution.minConfidence);
  const winnerId = resolveField(field, accepted)?.lineage.contributionId ?? null;
  const winner = kept.find((c) => c.contributionId === winnerId);
  const candidates = touching.map((c): CandidateExplanation => {
    const cand = asCandidate(c);
    const isKept = c.status === "accepted" && cand.confidence >= field.resolution.minConfidence;
    let reason: string;
    if (c.status === "superseded") {
      const by = contributions.find((x) => x.supersedes === c.contributionId);
      reason = by ? `superseded by ${by.contributionId}` : "superseded";
    } else if (!isKept) reason = `below minConfidence ${field.resolution.minConfidence}: ignored`;
    else if (winner && cand.contributionId === winner.contributionId) reason = winnerReason(field, winner, kept);
    else reason = winner ? loserReason(field, kept.find((k) => k.contributionId === cand.contributionId)!, winner, kept) : "";
    return { ...cand, status: c.status, candidate: isKept, picked: cand.contributionId === winnerId, reason };
  });
  const out: FieldEvidence = { field: f.name, type: f.type, value, policy: field.resolution.policy, winner: winnerId, lineage, candidates };
  if (field.resolution.minConfidence > 0) out.minConfidence = field.resolution.minConfidence;
  if (field.resolution.sourcePriority) out.sourcePriority = field.resolution.sourcePriority;
  return out;
}

/** Explains a record's fields (all, or the one named). */
export async function explainRecordFields(reader: LineageReader, record: DdsRecord, only?: string): Promise<RecordExplanation> {
  const contributions = await reader.contributionsOf(record.recordId);
  const fields: FieldEvidence[] = [];
  for (const f of record.model?.fields ?? []) {
    if (only !== undefined && f.name !== only) continue;
    const value = record.data[f.name] ?? null;
    const lineage = record.lineage?.[f.name] ?? null;
    if (f.computed) {
      const reads = await computedDependencies(reader, record, f.computed.expression, 2);
      fields.push({ field: f.name, type: f.type, value, policy: "computed", winner: null, lineage, candidates: [], computed: { expression: f.computed.expression, reads } });
    } else {
      fields.push(explainContributedField(f, value, contributions, lineage));
    }
  }
  const model = record.model?.name ?? (await reader.model(record.modelId))?.name ?? record.modelId;
  return { recordId: record.recordId, modelId: record.modelId, model, contextId: record.contextId, freshness: record.freshness, fields };
}
