/** Impact: the draft over every case the rule applies to, and the cases that would flip. */
import { runImpact } from "../../../src/portable/workbench/rules-eval/impact.js";
import type { Rule } from "../../../src/contract/schemas/index.js";
import { service } from "../api/service.js";
import { ErrorNote, Loading, Outcome, Panel } from "../components/bits.js";
import { href, Link } from "../router.js";
import { useAsync } from "../util/use-async.js";

/** The impact panel of the rule view; `version` is the saved rule's (a save recomputes it). */
export function RuleImpact(props: { rule: Rule; expression: unknown; contextTypes: string[]; version: string }) {
  const key = JSON.stringify([props.expression, props.contextTypes, props.version]);
  const impact = useAsync(() => runImpact(service, { expression: props.expression, contextTypes: props.contextTypes }, {}, props.rule), [key]);
  const r = impact.data;
  const flips = r?.results.filter((x) => x.flip) ?? [];
  return (
    <Panel title="Impact on every case" id="impact">
      <ErrorNote error={impact.error} />
      {!r && !impact.error && <Loading what="the impact" />}
      {r && (
        <div aria-live="polite" aria-busy={impact.loading}>
          <p id="impact-summary" class="impact-summary">
            <strong>{r.contexts}</strong> cases: <span class="pass-text">{r.passed} pass</span> · <span class="fail-text">{r.failed} fail</span>
            {r.errors ? ` · ${r.errors} not evaluated` : ""}
            {impact.loading && <span class="muted"> · updating…</span>}
          </p>
          {r.against && (
            <p id="impact-flips">
              Against saved v{props.rule.version}: <strong>{r.against.passToFail + r.against.failToPass} would flip</strong> (fail → pass {r.against.failToPass}, pass → fail {r.against.passToFail}), {r.against.unchanged} unchanged
            </p>
          )}
          {flips.length > 0 && (
            <ul class="flips">
              {flips.map((x) => (
                <li data-flip={x.name ?? x.contextId}>
                  <Outcome outcome={x.before} /> → <Outcome outcome={x.outcome} />{" "}
                  <Link href={href(`/cases/${x.contextId}/evaluations/${props.rule.ruleId}`)}>{x.name ?? x.contextId}</Link>
                </li>
              ))}
            </ul>
          )}
          {r.results
            .filter((x) => x.error)
            .map((x) => (
              <p class="error">
                {x.name ?? x.contextId}: {x.error}
              </p>
            ))}
        </div>
      )}
    </Panel>
  );
}
