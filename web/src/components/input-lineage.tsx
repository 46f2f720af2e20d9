/** Where a rule input's value came from: each record, its winning contribution, computed reads. */
import type { InputSource } from "../../../src/portable/workbench/trace/input-sources.js";
import { href, Link } from "../router.js";
import { Value } from "./bits.js";

function Source(props: { source: InputSource; contextId: string }) {
  const s = props.source;
  const to = href(`/cases/${props.contextId}`, { record: s.recordId, field: s.field });
  return (
    <li data-source={s.sourceId ?? s.policy ?? ""}>
      <Link href={to}>
        {s.model}
        {s.label ? ` ${s.label}` : ""}
        {s.field ? `.${s.field}` : ""}
      </Link>{" "}
      = <Value value={s.value} />
      {s.via && <span class="muted"> via {s.via}</span>}
      {s.policy === "computed" ? (
        <span class="muted"> · computed</span>
      ) : s.contributionId ? (
        <span>
          {" "}
          ← <code>{s.sourceId}</code> ({s.sourceType}, confidence {s.confidence}) · {s.policy} over {s.candidates} candidate{s.candidates === 1 ? "" : "s"}
        </span>
      ) : (
        <span class="muted"> · no contribution</span>
      )}
      {s.computed && (
        <ul>
          {s.computed.from.map((dep) => (
            <li>
              reads <code>{dep.path}</code> = <Value value={dep.value} />
              <ul>
                {dep.sources.map((x) => (
                  <Source source={x} contextId={props.contextId} />
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** The sources of one input (an empty list says why, in `note`). */
export function InputLineage(props: { contextId: string; sources: InputSource[]; note?: string }) {
  if (props.sources.length === 0) return <p class="muted">{props.note ?? "No record supplies this value."}</p>;
  return (
    <ul class="lineage">
      {props.sources.map((s) => (
        <Source source={s} contextId={props.contextId} />
      ))}
    </ul>
  );
}
