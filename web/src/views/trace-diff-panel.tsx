/**
 * `trace diff` in the page: this evaluation against a saved point in time, the case as of
 * a time, or another case. The baseline is in the address (`?diff=snapshot:<id>`,
 * `time:<iso>` or `case:<contextId>`), so a diff is a deep link too.
 */
import { useState } from "preact/hooks";
import type { Context } from "../../../src/contract/schemas/index.js";
import { runTraceDiff, type DiffBaseline } from "../../../src/portable/workbench/trace/trace-diff-run.js";
import { service } from "../api/service.js";
import { ErrorNote, Loading, Outcome, Panel, Value } from "../components/bits.js";
import { InputLineage } from "../components/input-lineage.js";
import { snapshotsOf } from "../data/snapshots.js";
import { setQuery } from "../router.js";
import { useAsync } from "../util/use-async.js";

function baselineOf(diff: string, contextId: string, ruleId: string): DiffBaseline | string {
  const [kind, ...rest] = diff.split(":");
  const value = rest.join(":");
  if (kind === "case") return { kind: "context", contextId: value };
  if (kind === "time") return Number.isFinite(Date.parse(value)) ? { kind: "time", asOf: new Date(value).toISOString() } : `"${value}" is not a time`;
  if (kind === "snapshot") {
    const s = snapshotsOf(contextId, ruleId).find((x) => x.id === value);
    return s ? { kind: "snapshot", file: `saved ${s.savedAt}`, document: s.report } : "that saved point is not in this browser's storage";
  }
  return `unknown baseline "${diff}"`;
}

function DiffResult(props: { contextId: string; ruleId: string; diff: string; version: string }) {
  const result = useAsync(async () => {
    const b = baselineOf(props.diff, props.contextId, props.ruleId);
    if (typeof b === "string") throw new Error(b);
    return runTraceDiff(service, props.contextId, props.ruleId, b);
  }, [props.diff, props.version]);
  const r = result.data;
  if (result.error) return <ErrorNote error={result.error} />;
  if (!r) return <Loading what="the diff" />;
  return (
    <div class="diff" aria-live="polite">
      <p>
        Outcome <Outcome outcome={r.outcome.old} /> → <Outcome outcome={r.outcome.new} />
        {r.changes.length === 0 && " · nothing changed"}
      </p>
      {r.changes.length > 0 && (
        <table class="grid compact" aria-label="Changed nodes">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Op</th>
              <th scope="col">Before</th>
              <th scope="col">Now</th>
            </tr>
          </thead>
          <tbody>
            {r.changes.map((c) => (
              <tr>
                <td>
                  <code>{c.path}</code>
                </td>
                <td>{c.op}</td>
                <td>{c.oldEvaluated ? <Value value={c.old} /> : <span class="muted">not evaluated</span>}</td>
                <td>{c.newEvaluated ? <Value value={c.new} /> : <span class="muted">not evaluated</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {r.inputs.map((i) => (
        <div class="diff-input">
          <p>
            <code>{i.path}</code>: <Value value={i.old} /> → <Value value={i.new} />
          </p>
          <InputLineage contextId={props.contextId} sources={i.sources} />
          {i.previousSources && (
            <details>
              <summary>Before</summary>
              <InputLineage contextId={props.contextId} sources={i.previousSources} />
            </details>
          )}
          {i.receivedSince && i.receivedSince.length > 0 && (
            <p class="muted">
              Received since: {i.receivedSince.map((x) => `${x.sourceId} ${x.field}=${JSON.stringify(x.value)}${x.winning ? " (winning)" : ""}`).join("; ")}
            </p>
          )}
        </div>
      ))}
    </div>
  );
}

/** The diff controls and result. */
export function TraceDiffPanel(props: { contextId: string; ruleId: string; diff: string | null; cases: Context[]; version: string; snapshotsVersion: number }) {
  const [time, setTime] = useState("");
  const snapshots = snapshotsOf(props.contextId, props.ruleId);
  return (
    <Panel title="Trace diff" id="diff">
      <div class="diff-controls">
        <label>
          Saved point{" "}
          <select value={props.diff?.startsWith("snapshot:") ? props.diff : ""} onChange={(e) => setQuery({ diff: e.currentTarget.value || null })}>
            <option value="">—</option>
            {snapshots.map((s) => (
              <option value={`snapshot:${s.id}`}>{new Date(s.savedAt).toLocaleString()}</option>
            ))}
          </select>
        </label>
        <label>
          Another case{" "}
          <select value={props.diff?.startsWith("case:") ? props.diff : ""} onChange={(e) => setQuery({ diff: e.currentTarget.value || null })}>
            <option value="">—</option>
            {props.cases
              .filter((c) => c.contextId !== props.contextId)
              .map((c) => (
                <option value={`case:${c.contextId}`}>{c.name ?? c.contextId}</option>
              ))}
          </select>
        </label>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (time) setQuery({ diff: `time:${new Date(time).toISOString()}` });
          }}
        >
          <label>
            As of <input type="datetime-local" value={time} onInput={(e) => setTime(e.currentTarget.value)} />
          </label>{" "}
          <button type="submit">Compare</button>
        </form>
      </div>
      {props.diff && <DiffResult contextId={props.contextId} ruleId={props.ruleId} diff={props.diff} version={props.version} />}
    </Panel>
  );
}
