/** Cases: every context with status, freshness and passed/failed counts, filtered, live. */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ContextSummary } from "../../../src/contract/schemas/index.js";
import { ErrorNote, Loading, State, Time } from "../components/bits.js";
import { loadCases, loadRules, loadSummaries, type CaseFilters } from "../data/cases.js";
import { service } from "../api/service.js";
import { href, Link, setQuery } from "../router.js";
import { useAsync, useInterval } from "../util/use-async.js";
import { CaseFilterBar } from "./cases-filters.js";

const PAGE = 50;
/** How often freshness is checked (the pipeline status is one cheap request). */
const LIVE_MS = 2000;
/** Lists up to this long are simply read again to stay live. */
const LIVE_RELOAD_MAX = 500;

function filtersOf(q: URLSearchParams): CaseFilters {
  const outcome = q.get("outcome");
  return {
    type: q.get("type") ?? undefined,
    status: q.get("status") ?? undefined,
    freshness: q.get("freshness") ?? undefined,
    meta: q.get("meta") ?? undefined,
    rule: q.get("rule") ?? undefined,
    outcome: outcome === "pass" || outcome === "fail" ? outcome : undefined,
  };
}

const metaText = (m: Record<string, unknown>) => Object.entries(m).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);

/** The cases view (`/cases`), the first view. */
export function CasesView(props: { query: URLSearchParams }) {
  const filters = filtersOf(props.query);
  const key = JSON.stringify(filters);
  const cases = useAsync(() => loadCases(filters), [key]);
  const rules = useAsync(loadRules, []);
  const summaries = useRef(new Map<string, ContextSummary>());
  const [, redraw] = useState(0);
  const page = Math.max(0, Number(props.query.get("page") ?? 0) || 0);
  const rows = (cases.data ?? []).slice(page * PAGE, (page + 1) * PAGE);
  const seen = useRef(new Map<string, string | null>());

  // Counts for the rows on screen; a row whose resolvedAt moved gets fresh counts.
  useEffect(() => {
    for (const c of rows) {
      if (seen.current.has(c.contextId) && seen.current.get(c.contextId) !== c.resolvedAt) summaries.current.delete(c.contextId);
      seen.current.set(c.contextId, c.resolvedAt);
    }
    // Each count shows as it arrives (one redraw per frame at most).
    let frame = 0;
    const arrived = () => {
      if (frame === 0) frame = requestAnimationFrame(() => ((frame = 0), redraw((n) => n + 1)));
    };
    void loadSummaries(
      rows.map((c) => c.contextId),
      summaries.current,
      arrived,
    ).then(arrived);
  }, [cases.data, page]);

  // Live freshness: a short list is read again each time (one request); a long one only
  // when the pipeline's counts move or work is pending.
  const last = useRef("");
  useInterval(() => {
    if ((cases.data?.length ?? 0) <= LIVE_RELOAD_MAX) return cases.reload();
    void service.pipelineStatus().then((s) => {
      const now = JSON.stringify(s);
      if (now !== last.current || s.contexts.stale + s.contexts.computing > 0) cases.reload();
      last.current = now;
    });
  }, LIVE_MS);

  const types = [...new Set((cases.data ?? []).map((c) => c.type).filter((t): t is string => !!t))].sort();
  const total = cases.data?.length ?? 0;
  return (
    <div class="view">
      <h1>Cases</h1>
      <CaseFilterBar filters={filters} types={types} rules={rules.data ?? []} />
      <ErrorNote error={cases.error} />
      {!cases.data && !cases.error && <Loading what="cases" />}
      {cases.data && (
        <>
          <p class="muted" aria-live="polite">
            {total} case{total === 1 ? "" : "s"} · live <span class="live-dot" aria-hidden="true" />
          </p>
          <table class="grid" aria-label="Cases">
            <thead>
              <tr>
                <th scope="col">Case</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Freshness</th>
                <th scope="col" class="num">Passed</th>
                <th scope="col" class="num">Failed</th>
                <th scope="col">Metadata</th>
                <th scope="col">Resolved</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => {
                const s = summaries.current.get(c.contextId);
                return (
                  <tr key={c.contextId} data-case={c.name ?? c.contextId}>
                    <td>
                      <Link href={`/cases/${c.contextId}`}>{c.name ?? c.contextId}</Link>
                    </td>
                    <td>{c.type ?? "—"}</td>
                    <td>
                      <State value={c.status} />
                    </td>
                    <td>
                      <State value={c.freshness} />
                    </td>
                    <td class="num pass-text">{s ? s.evaluations.passed : "…"}</td>
                    <td class={`num ${s && s.evaluations.failed > 0 ? "fail-text" : ""}`}>{s ? s.evaluations.failed : "…"}</td>
                    <td>
                      {metaText(c.metadata).map((m) => (
                        <span class="chip">{m}</span>
                      ))}
                    </td>
                    <td>
                      <Time iso={c.resolvedAt} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {total > PAGE && (
            <nav class="pager" aria-label="Pages">
              <button disabled={page === 0} onClick={() => setQuery({ page: String(page - 1) })}>
                Previous
              </button>
              <span>
                {page * PAGE + 1}–{Math.min(total, (page + 1) * PAGE)} of {total}
              </span>
              <button disabled={(page + 1) * PAGE >= total} onClick={() => setQuery({ page: String(page + 1) })}>
                Next
              </button>
            </nav>
          )}
          {total === 0 && (
            <p>
              No case matches. <Link href={href("/cases")}>Clear the filters</Link>.
            </p>
          )}
        </>
      )}
    </div>
  );
}
