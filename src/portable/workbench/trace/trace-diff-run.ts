/**
 * `trace diff`: gathers the two evaluations (now, and a snapshot / the context as of a
 * time / another context), diffs them, and explains each changed input: the contribution
 * supplying it now, what supplied it before when known, and (for a time) the evidence
 * received since on the records and fields behind it.
 */
import { errors } from "../../../contract/errors.js";
import type { EvaluationTrace } from "../../../contract/schemas/index.js";
import type { DdsService } from "../../../contract/service.js";
import { currentEvaluation } from "./current-evaluation.js";
import { evidenceLeaves, sourcesOfPath, type InputExplanation, type InputSource } from "./input-sources.js";
import { LineageReader } from "./lineage-reader.js";
import { diffTraces, type InputChange, type NodeChange } from "./trace-diff.js";

/** What the current evaluation is compared with. */
export type DiffBaseline =
  | { kind: "snapshot"; file: string; document: unknown }
  | { kind: "time"; asOf: string }
  | { kind: "context"; contextId: string };

/** A contribution received after the `--since` time on a record and field behind an input. */
export interface ReceivedSince {
  contributionId: string;
  recordId: string;
  field: string;
  value: unknown;
  sourceType: string;
  sourceId: string;
  confidence: number;
  receivedAt: string;
  status: string;
  /** True when it is the winning contribution for that field now. */
  winning: boolean;
}

/** One changed input, explained. */
export interface ExplainedInputChange extends InputChange {
  /** Where the value comes from now. */
  sources: InputSource[];
  /** Where it came from before (a snapshot's lineage, or the other context's). */
  previousSources?: InputSource[];
  receivedSince?: ReceivedSince[];
}

/** `trace diff --json`. */
export interface TraceDiffReport {
  contextId: string;
  ruleId: string;
  against: { kind: "snapshot"; file: string } | { kind: "time"; asOf: string } | { kind: "context"; contextId: string };
  outcome: { old: boolean; new: boolean };
  changes: NodeChange[];
  inputs: ExplainedInputChange[];
}

interface Side {
  outcome: boolean;
  evaluationTrace: EvaluationTrace;
  inputs?: InputExplanation[];
}

/** The evaluation inside a snapshot: a `trace --json` report, an evaluation, or a dry-run result. */
function snapshotSide(doc: unknown, file: string): Side {
  const d = doc as { evaluation?: unknown; inputs?: unknown } | null;
  const e = (d && typeof d === "object" && "evaluation" in d ? d.evaluation : d) as { outcome?: unknown; evaluationTrace?: EvaluationTrace } | null;
  if (!e || typeof e.outcome !== "boolean" || !e.evaluationTrace?.steps) {
    throw errors.usage(`${file} is not a trace snapshot: save one with ddsctl trace <contextId> <rule> --json > ${file}`);
  }
  const inputs = Array.isArray(d?.inputs) ? (d.inputs as InputExplanation[]) : undefined;
  return { outcome: e.outcome, evaluationTrace: e.evaluationTrace, inputs };
}

async function baselineSide(service: DdsService, contextId: string, ruleId: string, b: DiffBaseline): Promise<Side> {
  if (b.kind === "snapshot") return snapshotSide(b.document, b.file);
  if (b.kind === "time") return service.evaluateRule({ ruleId, contextId, asOf: b.asOf });
  return (await currentEvaluation(service, b.contextId, ruleId)).evaluation;
}

async function receivedSince(reader: LineageReader, sources: InputSource[], asOf: string): Promise<ReceivedSince[]> {
  const out: ReceivedSince[] = [];
  const after = Date.parse(asOf);
  for (const leaf of evidenceLeaves(sources)) {
    for (const c of await reader.contributionsOf(leaf.recordId)) {
      if (Date.parse(c.receivedAt) <= after || !Object.prototype.hasOwnProperty.call(c.data, leaf.field)) continue;
      out.push({
        contributionId: c.contributionId,
        recordId: c.recordId,
        field: leaf.field,
        value: c.data[leaf.field],
        sourceType: c.sourceType,
        sourceId: c.sourceId,
        confidence: c.fieldConfidences[leaf.field] ?? 1,
        receivedAt: c.receivedAt,
        status: c.status,
        winning: c.contributionId === leaf.contributionId,
      });
    }
  }
  return out;
}

/** Runs the diff of `ruleId` in `contextId` against a baseline. */
export async function runTraceDiff(service: DdsService, contextId: string, ruleId: string, baseline: DiffBaseline): Promise<TraceDiffReport> {
  const reader = new LineageReader(service);
  const now = (await currentEvaluation(service, contextId, ruleId)).evaluation;
  const old = await baselineSide(service, contextId, ruleId, baseline);
  const diff = diffTraces(old, now);
  const inputs: ExplainedInputChange[] = [];
  for (const change of diff.inputs) {
    const explained: ExplainedInputChange = { ...change, sources: (await sourcesOfPath(reader, contextId, change.path, change.new)).sources };
    if (baseline.kind === "context") explained.previousSources = (await sourcesOfPath(reader, baseline.contextId, change.path, change.old)).sources;
    const fromSnapshot = old.inputs?.find((i) => i.path === change.path);
    if (fromSnapshot) explained.previousSources = fromSnapshot.sources;
    if (baseline.kind === "time") explained.receivedSince = await receivedSince(reader, explained.sources, baseline.asOf);
    inputs.push(explained);
  }
  const against = baseline.kind === "snapshot" ? { kind: baseline.kind, file: baseline.file } : baseline;
  return { contextId, ruleId, against, outcome: diff.outcome, changes: diff.changes, inputs };
}
