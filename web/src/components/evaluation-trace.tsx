/** An evaluation's trace tree with its elements labelled by their records, once their lineage is read. */
import type { EvaluationTrace as Trace } from "../../../src/contract/schemas/index.js";
import { loadElementLabels } from "../../../src/portable/workbench/trace/element-records.js";
import { LineageReader } from "../../../src/portable/workbench/trace/lineage-reader.js";
import { alignEvaluation } from "../../../src/portable/workbench/trace/trace-report.js";
import { service } from "../api/service.js";
import { useAsync } from "../util/use-async.js";
import { TraceTree } from "./trace-tree.js";

/** The tree of `evaluation` in `contextId`; `version` changes when the case is resolved again. */
export function EvaluationTrace(props: { contextId: string; evaluation: { evaluationTrace: Trace }; version: string; label: string; onInput(path: string): void; activeInput?: string | null }) {
  const trace = props.evaluation.evaluationTrace;
  const root = alignEvaluation(trace);
  const labels = useAsync(() => loadElementLabels(new LineageReader(service), props.contextId, root), [props.contextId, props.version, JSON.stringify(trace.steps)]);
  return <TraceTree root={root} label={props.label} onInput={props.onInput} activeInput={props.activeInput} elementLabels={labels.data} />;
}

