/** The draft evaluated against the open case: nothing is saved (POST /v1/rules/evaluate). */
import type { Context } from "../../../src/contract/schemas/index.js";
import { service } from "../api/service.js";
import { ErrorNote, Loading, Outcome, Panel } from "../components/bits.js";
import { EvaluationTrace } from "../components/evaluation-trace.js";
import { href, navigate, setQuery } from "../router.js";
import { useAsync } from "../util/use-async.js";

/** The dry-run panel of the rule view. */
export function RuleDryRun(props: { ruleId: string; expression: unknown; contextId: string | null; cases: Context[]; version: string }) {
  const key = JSON.stringify([props.expression, props.contextId, props.version]);
  const run = useAsync(async () => (props.contextId ? service.evaluateRule({ expression: props.expression, contextId: props.contextId }) : undefined), [key]);
  const r = run.data;
  return (
    <Panel
      title="Dry run on the open case"
      id="dry-run"
      actions={
        <label>
          Case{" "}
          <select value={props.contextId ?? ""} onChange={(e) => setQuery({ case: e.currentTarget.value || null })}>
            <option value="">—</option>
            {props.cases.map((c) => (
              <option value={c.contextId}>{c.name ?? c.contextId}</option>
            ))}
          </select>
        </label>
      }
    >
      {!props.contextId && <p class="muted">Pick a case to evaluate the draft against.</p>}
      <ErrorNote error={run.error} />
      {props.contextId && !r && !run.error && <Loading what="the dry run" />}
      {r && props.contextId && (
        <div aria-busy={run.loading}>
          <p id="dry-run-outcome">
            Draft outcome <Outcome outcome={r.outcome} /> <span class="muted">(nothing saved)</span>
          </p>
          {r.evaluationTrace.error && <p class="error">Runtime error: {r.evaluationTrace.error}</p>}
          <EvaluationTrace contextId={props.contextId} evaluation={r} version={key} label="Dry-run trace" onInput={(path) => navigate(href(`/cases/${props.contextId}/evaluations/${props.ruleId}`, { input: path }))} />
        </div>
      )}
    </Panel>
  );
}
