/** One field explained (what `records explain` prints): every candidate, the winner, why. */
import type { FieldEvidence } from "../../../src/portable/workbench/explain/record-explain.js";
import { Time, Value } from "./bits.js";

function Dependencies(props: { field: FieldEvidence }) {
  const reads = props.field.computed?.reads ?? [];
  return (
    <div>
      <p>
        Computed by <code>{JSON.stringify(props.field.computed?.expression)}</code>; it read:
      </p>
      <ul>
        {reads.map((d) => (
          <li>
            <code>{d.path}</code> = <Value value={d.value} />
            {d.sources.map((s) => (
              <span class="muted">
                {" "}
                · {s.model} {s.label} {s.field}: {s.sourceId ?? s.policy ?? "no source"}
              </span>
            ))}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The candidates table of one field. */
export function FieldExplain(props: { field: FieldEvidence }) {
  const f = props.field;
  if (f.computed) return <Dependencies field={f} />;
  return (
    <div class="explain">
      <p>
        Policy <strong>{f.policy}</strong>
        {f.sourcePriority ? ` (${f.sourcePriority.join(" > ")})` : ""}
        {f.minConfidence !== undefined ? `, minConfidence ${f.minConfidence}` : ""} · value <Value value={f.value} />
      </p>
      {f.candidates.length === 0 ? (
        <p class="muted">No contribution has given this field a value.</p>
      ) : (
        <div class="table-scroll">
          <table class="grid compact" aria-label={`Candidates for ${f.field}`}>
            <thead>
              <tr>
                <th scope="col">Picked</th>
                <th scope="col">Value</th>
                <th scope="col">Source</th>
                <th scope="col">Type</th>
                <th scope="col" class="num">Confidence</th>
                <th scope="col">Observed / received</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {f.candidates.map((c) => (
                <tr class={c.picked ? "picked" : c.candidate ? "" : "ignored"} data-contribution={c.contributionId}>
                  <td>{c.picked ? "✓ winner" : c.status === "superseded" ? "superseded" : c.candidate ? "" : "ignored"}</td>
                  <td>
                    <Value value={c.value} />
                  </td>
                  <td>
                    <code title={c.contributionId}>{c.sourceId}</code>
                  </td>
                  <td>{c.sourceType}</td>
                  <td class="num">{c.confidence}</td>
                  <td>
                    <Time iso={c.observedAt ?? c.receivedAt} />
                  </td>
                  <td>{c.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
