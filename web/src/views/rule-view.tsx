/**
 * A rule: edit its document (YAML or JSON) with problems marked as you type; the draft
 * runs at once against the open case (dry run) and every case (impact, flips), and the
 * rule's tests; Save makes it a new version, which the service then re-evaluates.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Rule } from "../../../src/contract/schemas/index.js";
import { service } from "../api/service.js";
import { allModels } from "../../../src/portable/workbench/trace/lineage-reader.js";
import { ErrorNote, Loading, State } from "../components/bits.js";
import { loadCases } from "../data/cases.js";
import { bodyOf, formatBody, parseRuleText, patchOf, type RuleFormat } from "../editor/rule-document.js";
import type { RuleEditor } from "../editor/code-editor.js";
import { href, Link } from "../router.js";
import { useAsync, useDebounced } from "../util/use-async.js";
import { RuleImpact } from "./rule-impact.js";
import { RuleDryRun } from "./rule-dry-run.js";
import { RuleTests } from "./rule-tests.js";

function Editor(props: { initial: string; format: RuleFormat; onChange(text: string): void; replace: { text: string; format: RuleFormat; n: number } }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<RuleEditor | undefined>(undefined);
  useEffect(() => {
    let cancelled = false;
    void import("../editor/code-editor.js").then((m) => {
      if (!cancelled && host.current) editor.current = m.mountRuleEditor(host.current, props.initial, props.format, props.onChange);
    });
    return () => {
      cancelled = true;
      editor.current?.destroy();
    };
  }, []);
  useEffect(() => {
    if (props.replace.n > 0) editor.current?.setText(props.replace.text, props.replace.format);
  }, [props.replace.n]);
  return <div class="editor" ref={host} />;
}

function Workbench(props: { rule: Rule; onSaved(rule: Rule): void; caseId: string | null }) {
  const { rule } = props;
  const [format, setFormat] = useState<RuleFormat>("yaml");
  const [text, setText] = useState(() => formatBody(bodyOf(rule), "yaml"));
  const [replace, setReplace] = useState({ text: "", format: "yaml" as RuleFormat, n: 0 });
  const [saving, setSaving] = useState<{ error?: Error; done?: number }>({});
  const settled = useDebounced(text, 400);
  // The models the expression's paths are checked against (as the service checks them on save).
  const models = useAsync(() => allModels(service), []).data;
  const parsed = parseRuleText(text, models);
  const draft = parseRuleText(settled, models).body;
  // While the document does not parse, the panels keep the last draft that did, marked stale.
  const lastGood = useRef(draft ?? bodyOf(rule));
  if (draft) lastGood.current = draft;
  const runnable = draft ?? lastGood.current;
  const stale = !draft || !parsed.body;
  const cases = useAsync(() => loadCases({}), []);
  const types = runnable.contextTypes;
  const applicable = (cases.data ?? []).filter((c) => types.length === 0 || (c.type !== null && types.includes(c.type)));
  const patch = parsed.body ? patchOf(rule, parsed.body) : {};
  const changed = Object.keys(patch).length > 0;
  const switchFormat = (f: RuleFormat) => {
    const body = parsed.body ?? bodyOf(rule);
    const next = formatBody(body, f);
    setFormat(f);
    setText(next);
    setReplace({ text: next, format: f, n: replace.n + 1 });
  };
  const save = async () => {
    setSaving({});
    try {
      const saved = await service.updateRule(rule.ruleId, patch);
      setSaving({ done: saved.version });
      props.onSaved(saved);
    } catch (err) {
      setSaving({ error: err as Error });
    }
  };
  return (
    <>
      <div class="rule-grid">
        <section class="panel" aria-label="Rule document">
          <header class="panel-head">
            <h2>Document</h2>
            <div role="group" aria-label="Format">
              <button aria-pressed={format === "yaml"} onClick={() => switchFormat("yaml")}>
                YAML
              </button>
              <button aria-pressed={format === "json"} onClick={() => switchFormat("json")}>
                JSON
              </button>
            </div>
          </header>
          <Editor initial={text} format={format} onChange={setText} replace={replace} />
          <div id="problems" aria-live="polite">
            {parsed.problems.length === 0 ? (
              <p class="ok">{changed ? `Valid: ${Object.keys(patch).join(", ")} changed.` : "Valid, unchanged."}</p>
            ) : (
              <ul class="problems">
                {parsed.problems.map((p) => (
                  <li class="error">{p.message}</li>
                ))}
              </ul>
            )}
          </div>
          <p class="actions">
            <button id="save" class="primary" disabled={!parsed.body || !changed} onClick={() => void save()}>
              Save as version {rule.version + 1}
            </button>{" "}
            {saving.done !== undefined && (
              <span id="saved" role="status">
                Saved as version {saving.done}.{" "}
                {props.caseId && <Link href={`/cases/${props.caseId}/evaluations/${rule.ruleId}`}>See the open case's evaluation</Link>}
              </span>
            )}
          </p>
          <ErrorNote error={saving.error} />
        </section>
        <div class={stale ? "results stale" : "results"} aria-describedby={stale ? "stale-note" : undefined}>
          {stale && (
            <p id="stale-note" class="stale-note" role="status">
              Stale: these results are of the last version of the document that parsed. Fix the document's problems to run the draft again.
            </p>
          )}
          <RuleDryRun ruleId={rule.ruleId} expression={runnable.expression} contextId={props.caseId} cases={applicable} version={String(rule.version)} />
          <RuleImpact rule={rule} expression={runnable.expression} contextTypes={runnable.contextTypes} version={String(rule.version)} />
        </div>
      </div>
      <div class={stale ? "results stale" : "results"}>
        {stale && (
          <p class="stale-note" role="status">
            Stale: the tests ran on the last version of the document that parsed.
          </p>
        )}
        <RuleTests rule={rule} expression={runnable.expression} />
      </div>
    </>
  );
}

/** The rule view (`/rules/<ruleId>`). */
export function RuleView(props: { ruleId: string; query: URLSearchParams }) {
  const loaded = useAsync(() => service.getRule(props.ruleId), [props.ruleId]);
  const [rule, setRule] = useState<Rule>();
  const current = rule?.ruleId === props.ruleId ? rule : loaded.data;
  const caseId = props.query.get("case");
  return (
    <div class="view">
      <nav class="crumbs" aria-label="Breadcrumb">
        <Link href="/rules">Rules</Link> › <span>{current?.name ?? props.ruleId}</span>
        {caseId && (
          <>
            {" "}
            · <Link href={href(`/cases/${caseId}`)}>back to the case</Link>
          </>
        )}
      </nav>
      <ErrorNote error={loaded.error} />
      {!current && !loaded.error && <Loading what="the rule" />}
      {current && (
        <>
          <h1>
            {current.name} <State value={current.status} /> <span class="muted">v{current.version}</span>
          </h1>
          <Workbench key={current.ruleId} rule={current} onSaved={setRule} caseId={caseId} />
        </>
      )}
    </div>
  );
}

