/**
 * Records resolved where their evidence is written: a record of a model without computed
 * fields has a row (data, sha256, issues, lineage) that depends on its own contributions and
 * its model's definition alone, whatever else its context holds; links and evaluations are
 * rows of their own. So an ingest that creates such a record can write it resolved at once,
 * and the pass of its context finds nothing to write for it.
 */
import type { RecordIssue } from "../../../contract/schemas/index.js";
import type { Candidate } from "../../../portable/resolution/candidate.js";
import { resolveField } from "../../../portable/resolution/resolve-field.js";
import type { CompiledField, CompiledModel } from "../../models/model-types.js";
import type { ResolvedColumns } from "../../store/evidence-repo.js";
import { LineageWriter } from "../../store/lineage-codec.js";
import { modelLineagePolicy } from "./build-record.js";
import type { PassContribution, PassRecord } from "../types.js";
import { canonicalJson } from "../../../portable/resolution/canonical-json.js";
import { sha256Hex } from "../../sha256-hex.js";
import { hasOwn } from "./record-order.js";
import { addValueIssues } from "./validate-values.js";
import { flat } from "../../../util/flat-string.js";

/** True when a model's records can be resolved alone (no computed field reads other records or fields). */
export function resolvesAlone(model: CompiledModel): boolean {
  return model.computedOrder.length === 0 && !model.fields.some((f) => f.computed);
}

/** A contribution's confidence for a field; missing or non-numeric means 1.0 (as resolve-records.ts). */
function confidenceOf(c: PassContribution, fieldId: string): number {
  const value = hasOwn(c.confidences, fieldId) ? c.confidences[fieldId] : undefined;
  return typeof value === "number" && Number.isFinite(value) ? value : 1;
}

/** A field's winner: its value, the winning contribution's id, source and confidence, and the number of candidates. */
interface Won {
  value: unknown;
  contributionId: string;
  sourceId: string;
  sourceType: Candidate["sourceType"];
  confidence: number;
  candidates: number;
}

/** The winner of one field among a record's contributions, as resolveField picks it. */
function winnerOf(field: CompiledField, contributions: readonly PassContribution[]): Won | undefined {
  const id = field.fieldId;
  if (contributions.length === 1) {
    // The usual new record: one contribution, which wins every field it has unless ignored
    // (no candidate object: an import resolves every new record this way).
    const c = contributions[0];
    if (!hasOwn(c.data, id) || c.data[id] === undefined) return undefined;
    const confidence = confidenceOf(c, id);
    if (confidence < field.resolution.minConfidence) return undefined;
    return { value: c.data[id], contributionId: c.id, sourceId: c.sourceId, sourceType: c.sourceType, confidence, candidates: 1 };
  }
  const candidates: Candidate[] = [];
  for (const c of contributions) {
    if (!hasOwn(c.data, id) || c.data[id] === undefined) continue;
    candidates.push({ contributionId: c.id, sourceId: c.sourceId, sourceType: c.sourceType, value: c.data[id], confidence: confidenceOf(c, id), receivedAt: c.receivedAt, observedAt: c.observedAt });
  }
  const resolved = resolveField(field, candidates);
  if (!resolved) return undefined;
  const l = resolved.lineage;
  return { value: resolved.value, contributionId: l.contributionId!, sourceId: l.sourceId!, sourceType: l.sourceType!, confidence: l.confidence!, candidates: l.candidates };
}

/**
 * The columns every pass would give each of `records` from `contributions` (the accepted
 * ones to them), by record id: the same data, hash, issues and lineage, byte for byte, that
 * resolve-records.ts and build-record.ts make (a record of a model that is absent or does
 * not resolve alone is left out). Written for the hot path of an import, one record at a
 * time without the pass's intermediate objects.
 */
export function resolveAlone(models: readonly CompiledModel[], records: readonly PassRecord[], contributions: readonly PassContribution[]): Map<string, ResolvedColumns> {
  const byId = new Map<string, CompiledModel>();
  for (const m of models) if (resolvesAlone(m)) byId.set(m.modelId, m);
  const byRecord = new Map<string, PassContribution[]>();
  for (const c of contributions) {
    const list = byRecord.get(c.recordId);
    if (list) list.push(c);
    else byRecord.set(c.recordId, [c]);
  }
  const out = new Map<string, ResolvedColumns>();
  for (const record of records) {
    const model = byId.get(record.modelId);
    if (model) out.set(record.id, resolveRecordAlone(model, byRecord.get(record.id) ?? []));
  }
  return out;
}

/** What writing a model's records needs, worked out once per compiled definition. */
interface ModelPlan {
  /** Each field's name as JSON text (`"name"`), in field order. */
  names: string[];
  /** Field indexes in the order of their names' UTF-16 code units: RFC 8785's key order. */
  sorted: number[];
}

const plans = new WeakMap<CompiledModel, ModelPlan>();

function planOf(model: CompiledModel): ModelPlan {
  let plan = plans.get(model);
  if (!plan) {
    const names = model.fields.map((f) => JSON.stringify(f.name));
    const sorted = model.fields.map((_, i) => i).sort((a, b) => (model.fields[a].name < model.fields[b].name ? -1 : model.fields[a].name > model.fields[b].name ? 1 : 0));
    plans.set(model, (plan = { names, sorted }));
  }
  return plan;
}

/**
 * A value's JSON text in a record's data. Its canonical form is the same for strings,
 * finite numbers, booleans and null (RFC 8785 writes them as JSON.stringify does); an
 * object or array is written canonically on its own (see canonicalText).
 */
function valueText(value: unknown): string {
  return typeof value === "number" && !Number.isFinite(value) ? "null" : JSON.stringify(value);
}

/** A value's canonical JSON, given its text in the data. */
function canonicalText(value: unknown, text: string): string {
  return value === null || typeof value !== "object" ? text : canonicalJson(value);
}

/**
 * The columns of one record of a model that resolves alone, from its accepted contributions
 * (see {@link resolveAlone}): the data's JSON in field order and the canonical JSON behind
 * its hash are written from the same value texts, the lineage with its field names quoted
 * once per definition, and no intermediate object per field.
 */
export function resolveRecordAlone(model: CompiledModel, own: readonly PassContribution[]): ResolvedColumns {
  const plan = planOf(model);
  const fields = model.fields;
  const issues: RecordIssue[] = [];
  const lineage = new LineageWriter(modelLineagePolicy(model));
  const canonicalTexts: (string | undefined)[] = new Array(fields.length);
  let data = "";
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    const won = own.length === 0 ? undefined : winnerOf(field, own);
    addValueIssues(issues, field, won?.value);
    if (!won) continue;
    const text = valueText(won.value);
    canonicalTexts[i] = canonicalText(won.value, text);
    data += `${data === "" ? "{" : ","}${plan.names[i]}:${text}`;
    lineage.field(field.name, won.contributionId, won.sourceId, won.sourceType, won.confidence, field.resolution.policy, won.candidates);
  }
  let canonical = "";
  for (const i of plan.sorted) if (canonicalTexts[i] !== undefined) canonical += `${canonical === "" ? "{" : ","}${plan.names[i]}:${canonicalTexts[i]}`;
  return {
    // Held by the write group until its end: flat, not a rope (flat-string.ts).
    data: data === "" ? "{}" : flat(`${data}}`),
    sha256: sha256Hex(canonical === "" ? "{}" : `${canonical}}`),
    issues: issues.length === 0 ? "[]" : JSON.stringify(issues),
    lineage: lineage.text(),
  };
}
