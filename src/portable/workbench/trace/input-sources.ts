/**
 * Where a rule input's value came from: the trace joined to record lineage. A rule path
 * names a model field (`Loan.dti`: the singleton's record), the same field over every
 * record of an identity model (`Applicant.creditScore`: one source per record, oldest
 * first, as the rule saw them), or a field through a relationship (`Loan.applicants.income`:
 * the linked records). A computed field's source lists what its expression read, each with
 * its own sources, a few levels deep.
 */
import type { DdsRecord } from "../../../contract/schemas/index.js";
import { collectVarPaths } from "../../json-logic/collect-var-paths.js";
import type { LineageReader } from "./lineage-reader.js";

/** One record's contribution to an input's value. */
export interface InputSource {
  recordId: string;
  model: string;
  /** The record's identity values (`applicantId=a1`); empty for a singleton. */
  label: string;
  /** The field read, or null when the path reads whole records. */
  field: string | null;
  value: unknown;
  /** The winning contribution (null for computed fields and unresolved values). */
  contributionId: string | null;
  sourceId: string | null;
  sourceType: string | null;
  confidence: number | null;
  /** The resolution policy, or `computed`. */
  policy: string | null;
  candidates: number;
  /** The relationship the record was reached through (`Loan.applicants`). */
  via?: string;
  /** For a computed field: its expression and what it read. */
  computed?: { expression: unknown; from: InputDependency[] };
}

/** One path a computed expression read, with its value and sources. */
export interface InputDependency {
  path: string;
  value: unknown;
  sources: InputSource[];
}

/** A rule input: the path, the value the rule read, and where it came from. */
export interface InputExplanation {
  path: string;
  value: unknown;
  sources: InputSource[];
  /** Why there are no sources (a context property, an unknown model…). */
  note?: string;
}

/** How many computed levels are unfolded below an input. */
const MAX_DEPTH = 3;

/** A record's identity values (`applicantId=a1`); empty for a singleton. */
export async function identityLabel(reader: LineageReader, r: DdsRecord): Promise<string> {
  const model = await reader.model(r.modelId);
  return (model?.identity ?? []).map((f) => `${f}=${typeof r.data[f] === "string" ? r.data[f] : JSON.stringify(r.data[f] ?? null)}`).join(",");
}

async function recordSource(reader: LineageReader, r: DdsRecord, field: string | null, depth: number, via?: string): Promise<InputSource> {
  const lineage = field === null ? undefined : r.lineage?.[field];
  const definition = field === null ? undefined : r.model?.fields.find((f) => f.name === field);
  const source: InputSource = {
    recordId: r.recordId,
    model: r.model?.name ?? (await reader.model(r.modelId))?.name ?? r.modelId,
    label: await identityLabel(reader, r),
    field,
    value: field === null ? r.data : (r.data[field] ?? null),
    contributionId: lineage?.contributionId ?? null,
    sourceId: lineage?.sourceId ?? null,
    sourceType: lineage?.sourceType ?? null,
    confidence: lineage?.confidence ?? null,
    policy: lineage?.policy ?? (definition?.computed ? "computed" : null),
    candidates: lineage?.candidates ?? 0,
  };
  if (via !== undefined) source.via = via;
  if (definition?.computed && depth < MAX_DEPTH) {
    const expression = definition.computed.expression;
    source.computed = { expression, from: await computedDependencies(reader, r, expression, depth + 1) };
  }
  return source;
}

/** What a computed expression on record `r` read: own fields and relationship paths. */
export async function computedDependencies(reader: LineageReader, r: DdsRecord, expression: unknown, depth: number): Promise<InputDependency[]> {
  const model = await reader.model(r.modelId);
  const out: InputDependency[] = [];
  for (const path of collectVarPaths(expression)) {
    const [head, ...rest] = path.split(".");
    if (rest.length === 0 && model?.fields.some((f) => f.name === head)) {
      out.push({ path, value: r.data[head] ?? null, sources: [await recordSource(reader, r, head, depth)] });
      continue;
    }
    const rel = model?.relationships.find((x) => x.name === head);
    if (!rel || rest.length > 1) {
      out.push({ path, value: null, sources: [] });
      continue;
    }
    const targets = await reader.relatedTo(r.recordId, rel.name);
    const tail = rest[0] ?? null;
    const sources = await Promise.all(targets.map((t) => recordSource(reader, t, tail, depth, `${model!.name}.${rel.name}`)));
    out.push({ path, value: sources.map((s) => s.value), sources });
  }
  return out;
}

/** The records a rule path reads in a context, in the order the rule saw them, or why none. */
export type PathRecords = { records: DdsRecord[]; field: string | null; via?: string } | { note: string };

/**
 * The records behind one rule path (see the module comment): the model's records oldest
 * first, or through a relationship the targets of each, flattened in that order. With
 * `listed`, the records come as lists give them (no lineage, a page per 500 records):
 * enough to say which record is which.
 */
export async function recordsOfPath(reader: LineageReader, contextId: string, path: string, listed = false): Promise<PathRecords> {
  const [head, ...rest] = path.split(".");
  if (head === "context") return { note: "a property of the context itself" };
  const model = await reader.model(head);
  if (!model || model.name !== head) return { note: `no model named ${head}` };
  const records = await (listed ? reader.listedOf(contextId, model.modelId) : reader.recordsOf(contextId, model.modelId));
  if (rest.length === 0) return { records, field: null };
  if (rest.length === 1 && model.fields.some((f) => f.name === rest[0])) return { records, field: rest[0] };
  const rel = model.relationships.find((x) => x.name === rest[0]);
  if (!rel || rest.length > 2) return { note: `${model.name} has no field or relationship ${rest.join(".")}` };
  const targets: DdsRecord[] = [];
  for (const r of records) for (const t of await (listed ? reader.linkedTo(r.recordId, rel.name) : reader.relatedTo(r.recordId, rel.name))) targets.push(t);
  return { records: targets, field: rest[1] ?? null, via: `${model.name}.${rel.name}` };
}

/** The sources of one rule path in a context (see the module comment). */
export async function sourcesOfPath(reader: LineageReader, contextId: string, path: string, value: unknown): Promise<InputExplanation> {
  const found = await recordsOfPath(reader, contextId, path);
  if ("note" in found) return { path, value, sources: [], note: found.note };
  return { path, value, sources: await Promise.all(found.records.map((r) => recordSource(reader, r, found.field, 1, found.via))) };
}

/** Every input of a trace, explained, in the order the trace lists them. */
export async function explainInputs(reader: LineageReader, contextId: string, inputs: Record<string, unknown>): Promise<InputExplanation[]> {
  const out: InputExplanation[] = [];
  for (const [path, value] of Object.entries(inputs ?? {})) out.push(await sourcesOfPath(reader, contextId, path, value));
  return out;
}

/** Every (record, non-computed field) at the bottom of a source tree: where evidence lands. */
export function evidenceLeaves(sources: InputSource[]): { recordId: string; field: string; contributionId: string | null }[] {
  const out = new Map<string, { recordId: string; field: string; contributionId: string | null }>();
  const walk = (s: InputSource) => {
    if (s.computed) for (const d of s.computed.from) d.sources.forEach(walk);
    else if (s.field !== null) out.set(`${s.recordId}/${s.field}`, { recordId: s.recordId, field: s.field, contributionId: s.contributionId });
  };
  sources.forEach(walk);
  return [...out.values()];
}
