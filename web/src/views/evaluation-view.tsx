/**
 * An evaluation: the trace tree (deciding branch lit, values inline, collapsible), each
 * input's lineage one click away, and `trace diff` against a saved point, a time or
 * another case. Live: read again when the case is resolved anew (a saved rule, new evidence).
 */
import { useState } from "preact/hooks";
import { currentEvaluation } from "../../../src/portable/workbench/trace/current-evaluation.js";
import { sourcesOfPath } from "../../../src/portable/workbench/trace/input-sources.js";
import { LineageReader } from "../../../src/portable/workbench/trace/lineage-reader.js";
import { isStoredEvaluation } from "../../../src/portable/workbench/trace/trace-report.js";
import { service } from "../api/service.js";
import { ErrorNote, Loading, Outcome, Panel, State, Time, Value } from "../components/bits.js";
import { InputLineage } from "../components/input-lineage.js";
import { EvaluationTrace } from "../components/evaluation-trace.js";
import { loadCases } from "../data/cases.js";
import { saveSnapshot } from "../data/snapshots.js";
import { href, Link, setQuery } from "../router.js";
import { useAsync, useInterval } from "../util/use-async.js";
import { TraceDiffPanel } from "./trace-diff-panel.js";

async function load(contextId: string, ruleId: string) {
  const [context, rule, current] = await Promise.all([service.getContext(contextId), service.getRule(ruleId), currentEvaluation(service, contextId, ruleId)]);
  return { context, rule, ...current };
}

function Lineage(props: { contextId: string; path: string; value: unknown; version: string }) {
  const explained = useAsync(() => sourcesOfPath(new LineageReader(service), props.contextId, props.path, props.value), [props.path, props.version]);
  return (
    <Panel title={`Lineage of ${props.path}`} id="lineage">
      <p>
        The rule read <Value value={props.value} />
      </p>
      <ErrorNote error={explained.error} />
      {explained.data ? <InputLineage contextId={props.contextId} sources={explained.data.sources} note={explained.data.note} /> : !explained.error && <Loading />}
    </Panel>
  );
}

/** The evaluation view (`/cases/<contextId>/evaluations/<ruleId>`). */
export function EvaluationView(props: { contextId: string; ruleId: string; query: URLSearchParams }) {
  const loaded = useAsync(() => load(props.contextId, props.ruleId), [props.contextId, props.ruleId]);
  const cases = useAsync(() => loadCases({}), []);
  const [saved, setSaved] = useState(0);
  const d = loaded.data;
  useInterval(() => {
    if (!d) return;
    void service.getContext(props.contextId).then((c) => {
      if (c.freshness !== d.context.freshness || c.resolvedAt !== d.context.resolvedAt || (c.freshness === "resolved" && d.from === "evaluation" && isStoredEvaluation(d.evaluation) && d.evaluation.freshness !== "resolved")) loaded.reload();
    });
  }, 1500);
  const input = props.query.get("input");
  const version = d ? `${d.context.resolvedAt}|${d.rule.version}` : "";
  const e = d?.evaluation;
  const stored = e && isStoredEvaluation(e) ? e : undefined;
  return (
    <div class="view">
      <nav class="crumbs" aria-label="Breadcrumb">
        <Link href="/cases">Cases</Link> › <Link href={`/cases/${props.contextId}`}>{d?.context.name ?? props.contextId}</Link> › <span>{d?.rule.name ?? props.ruleId}</span>
      </nav>
      <ErrorNote error={loaded.error} />
      {!d && !loaded.error && <Loading what="the evaluation" />}
      {d && e && (
        <>
          <h1>
            <span id="outcome">
              <Outcome outcome={e.outcome} />
            </span>{" "}
            {d.rule.name} <span class="muted">in</span> {d.context.name ?? d.context.contextId}
          </h1>
          <p class="muted">
            {d.rule.severity} · {d.rule.category} · rule v{d.rule.version}
            {stored ? (
              <>
                {" "}
                · evaluated with v{stored.ruleVersion} <Time iso={stored.computedAt} /> <State value={stored.freshness} />
              </>
            ) : (
              " · not stored here (the rule does not apply or is inactive): evaluated now"
            )}
          </p>
          <p class="actions">
            <Link class="button" href={href(`/rules/${props.ruleId}`, { case: props.contextId })}>
              Edit the rule
            </Link>{" "}
            <button
              onClick={() => {
                const s = saveSnapshot(props.contextId, props.ruleId, { evaluation: e });
                setSaved(saved + 1);
                setQuery({ diff: `snapshot:${s.id}` });
              }}
            >
              Save this point in time
            </button>
          </p>
          {e.evaluationTrace.error && <p class="error">Runtime error: {e.evaluationTrace.error}</p>}
          <div class="eval-grid">
            <Panel title="Trace" id="trace">
              <EvaluationTrace contextId={props.contextId} evaluation={e} version={version} label={`Trace of ${d.rule.name}`} onInput={(path) => setQuery({ input: path })} activeInput={input} />
            </Panel>
            <div>
              <Panel title="Inputs" id="inputs">
                <ul class="inputs">
                  {Object.entries(e.evaluationTrace.inputs ?? {}).map(([path, value]) => (
                    <li>
                      <button class="linkish" aria-pressed={input === path} onClick={() => setQuery({ input: path })}>
                        {path}
                      </button>{" "}
                      = <Value value={value} />
                    </li>
                  ))}
                </ul>
              </Panel>
              {input && <Lineage contextId={props.contextId} path={input} value={(e.evaluationTrace.inputs ?? {})[input]} version={version} />}
            </div>
          </div>
          <TraceDiffPanel contextId={props.contextId} ruleId={props.ruleId} diff={props.query.get("diff")} cases={cases.data ?? []} version={version} snapshotsVersion={saved} />
        </>
      )}
    </div>
  );
}
