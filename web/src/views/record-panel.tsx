/** One record: every field with its winning value; a field opens its candidates. */
import { explainRecordFields } from "../../../src/portable/workbench/explain/record-explain.js";
import { LineageReader } from "../../../src/portable/workbench/trace/lineage-reader.js";
import { service } from "../api/service.js";
import { ErrorNote, Loading, Panel, State, Value } from "../components/bits.js";
import { FieldExplain } from "../components/field-explain.js";
import { setQuery } from "../router.js";
import { useAsync } from "../util/use-async.js";

async function loadExplanation(recordId: string) {
  const reader = new LineageReader(service);
  return explainRecordFields(reader, await reader.record(recordId));
}

/** The fields of one record; `version` changes when the case is resolved again. */
export function RecordPanel(props: { recordId: string; field: string | null; version: string }) {
  const explained = useAsync(() => loadExplanation(props.recordId), [props.recordId, props.version]);
  const e = explained.data;
  return (
    <Panel title={e ? `${e.model} record` : "Record"} id="record-panel">
      <ErrorNote error={explained.error} />
      {!e && !explained.error && <Loading what="the record" />}
      {e && (
        <>
          <p class="muted">
            <code>{e.recordId}</code> <State value={e.freshness} />
          </p>
          <div class="table-scroll">
            <table class="grid compact" aria-label="Fields">
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Value</th>
                  <th scope="col">From</th>
                  <th scope="col" class="num">Candidates</th>
                </tr>
              </thead>
              <tbody>
                {e.fields.map((f) => {
                  const open = props.field === f.field;
                  const winner = f.candidates.find((c) => c.picked);
                  return (
                    <>
                      <tr class={open ? "open" : ""} data-field={f.field}>
                        <th scope="row">
                          <button class="linkish" aria-expanded={open} onClick={() => setQuery({ field: open ? null : f.field })}>
                            {f.field}
                          </button>
                        </th>
                        <td>
                          <Value value={f.value} />
                        </td>
                        <td title={winner ? `${winner.sourceType}, confidence ${winner.confidence}` : undefined}>{f.policy === "computed" ? "computed" : winner ? `${winner.sourceId} (${winner.confidence})` : "—"}</td>
                        <td class="num">{f.candidates.filter((c) => c.candidate).length}</td>
                      </tr>
                      {open && (
                        <tr class="detail">
                          <td colSpan={4}>
                            <FieldExplain field={f} />
                          </td>
                        </tr>
                      )}
                    </>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Panel>
  );
}
