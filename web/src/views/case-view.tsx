/** A case: its record graph, the selected record's fields, its evaluations (failed first). */
import type { DdsRecord, Evaluation } from "../../../src/contract/schemas/index.js";
import { ErrorNote, Loading, Outcome, Panel, State, Time } from "../components/bits.js";
import { recordLabel } from "../components/record-label.js";
import { lazyView } from "../util/lazy-view.js";
import { VirtualList } from "../components/virtual-list.js";
import { loadCase, type CaseData } from "../data/case-graph.js";
import { Link, setQuery } from "../router.js";
import { service } from "../api/service.js";
import { useAsync, useInterval } from "../util/use-async.js";
import { RecordPanel } from "./record-panel.js";

/** The graph and its layout library (dagre) load on first use, as the rule editor does. */
const RecordGraph = lazyView(() => import("../components/record-graph.js").then((m) => m.RecordGraph));

function Evaluations(props: { contextId: string; evaluations: Evaluation[] }) {
  return (
    <Panel title="Evaluations" id="evaluations">
      {props.evaluations.length === 0 && <p class="muted">No rule applies to this case yet.</p>}
      <ul class="evals">
        {props.evaluations.map((e) => (
          <li data-rule={e.rule.name}>
            <Outcome outcome={e.outcome} /> <Link href={`/cases/${props.contextId}/evaluations/${e.ruleId}`}>{e.rule.name}</Link>{" "}
            <span class="muted">
              {e.rule.severity} · {e.rule.category} · v{e.ruleVersion}
            </span>{" "}
            {e.freshness !== "resolved" && <State value={e.freshness} />}
          </li>
        ))}
      </ul>
    </Panel>
  );
}

function ModelRecords(props: { data: CaseData; model: string }) {
  const model = props.data.models.find((m) => m.name === props.model);
  const records = props.data.records.filter((r) => r.modelId === model?.modelId);
  return (
    <Panel title={`${props.model}: ${records.length.toLocaleString()} records`} id="model-records">
      <VirtualList<DdsRecord>
        items={records}
        rowHeight={30}
        height={360}
        label={`${props.model} records`}
        row={(r) => (
          <button class="linkish" onClick={() => setQuery({ record: r.recordId, field: null, model: null }, true)}>
            {recordLabel(r, model) || r.recordId}
            {r.issues.length > 0 ? ` ⚠ ${r.issues.length}` : ""}
          </button>
        )}
      />
    </Panel>
  );
}

/** The case view (`/cases/<contextId>`). */
export function CaseView(props: { contextId: string; query: URLSearchParams }) {
  const loaded = useAsync(() => loadCase(props.contextId), [props.contextId]);
  const d = loaded.data;
  // Live: one small read; the whole case is read again only when its freshness moved.
  useInterval(() => {
    if (!d) return;
    void service.getContext(props.contextId).then((c) => {
      if (c.freshness !== d.context.freshness || c.resolvedAt !== d.context.resolvedAt) loaded.reload();
    });
  }, 2000);
  const record = props.query.get("record");
  const model = props.query.get("model");
  const s = d?.context.summary;
  return (
    <div class="view">
      <nav class="crumbs" aria-label="Breadcrumb">
        <Link href="/cases">Cases</Link> › <span>{d?.context.name ?? props.contextId}</span>
      </nav>
      <ErrorNote error={loaded.error} />
      {!d && !loaded.error && <Loading what="the case" />}
      {d && (
        <>
          <h1>
            {d.context.name ?? d.context.contextId} <State value={d.context.status} /> <State value={d.context.freshness} />
          </h1>
          <p class="muted">
            {d.context.type ?? "no type"} · {s ? `${s.records.total} records · ${s.evaluations.passed} passed · ${s.evaluations.failed} failed` : ""} · resolved <Time iso={d.context.resolvedAt} />
          </p>
          {/* An open record or model takes the wider column: its tables need it more than the graph. */}
          <div class={record || model ? "case-grid record-open" : "case-grid"}>
            <div>
              <Panel title="Record graph" id="graph">
                <RecordGraph
                  records={d.records}
                  links={d.links}
                  models={d.models}
                  selected={record ?? model}
                  onOpen={(t) => setQuery(t.recordId ? { record: t.recordId, field: null, model: null } : { model: t.model!, record: null, field: null }, true)}
                />
                {d.links.some((l) => l.removedAt) && <p class="muted">Dashed links were removed through the API; the pipeline will not make them again.</p>}
              </Panel>
              <Evaluations contextId={props.contextId} evaluations={d.evaluations} />
            </div>
            <div>
              {model && !record && <ModelRecords data={d} model={model} />}
              {record && <RecordPanel recordId={record} field={props.query.get("field")} version={d.context.resolvedAt ?? ""} />}
              {!record && !model && <p class="muted hint">Pick a record in the graph (Tab, then Enter) to see its fields and where each value came from.</p>}
            </div>
          </div>
        </>
      )}
    </div>
  );
}
