/** The studio's page: a header, the session check, and the view of the current address. */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { onSessionRefused, useSessionKey } from "./api/service.js";
import { saveSessionKey } from "./api/session.js";
import { Link, navigate, parseRoute, useLocation } from "./router.js";
import { CaseView } from "./views/case-view.js";
import { CasesView } from "./views/cases-view.js";
import { EvaluationView } from "./views/evaluation-view.js";
import { RulesView } from "./views/rules-view.js";
import { lazyView } from "./util/lazy-view.js";
import "./styles.css";

// The rule editor brings YAML and the rule validator: loaded when a rule is opened.
const RuleView = lazyView(() => import("./views/rule-view.js").then((m) => m.RuleView));

function SessionNotice() {
  const [text, setText] = useState("");
  const submit = (e: Event) => {
    e.preventDefault();
    saveSessionKey(text);
    useSessionKey(text.trim().replace(/^.*#session=/, ""));
    location.reload();
  };
  return (
    <div class="session" role="alert">
      <p>
        This page needs the session key of a running <code>ddsctl studio</code>: open the URL it printed, or paste it here.
      </p>
      <form onSubmit={submit}>
        <label>
          Studio URL or key <input value={text} onInput={(e) => setText(e.currentTarget.value)} size={60} />
        </label>{" "}
        <button type="submit">Use it</button>
      </form>
    </div>
  );
}

function App() {
  const { path, query } = useLocation();
  const [refused, setRefused] = useState(false);
  useEffect(() => onSessionRefused(() => setRefused(true)), []);
  // The cases are the first view; their address says so, like every other view's.
  if (path === "/") navigate(`/cases${location.search}`, true);
  const route = parseRoute(path);
  const section = route.view === "rules" || route.view === "rule" ? "rules" : "cases";
  useEffect(() => {
    document.getElementById("main")?.focus({ preventScroll: true });
  }, [path]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <strong class="brand">ddsctl studio</strong>
        <nav aria-label="Sections">
          <Link href="/cases" aria-current={section === "cases" ? "page" : undefined}>
            Cases
          </Link>
          <Link href="/rules" aria-current={section === "rules" ? "page" : undefined}>
            Rules
          </Link>
        </nav>
      </header>
      {refused && <SessionNotice />}
      <main id="main" tabIndex={-1}>
        {route.view === "cases" && <CasesView query={query} />}
        {route.view === "case" && <CaseView contextId={route.contextId} query={query} />}
        {route.view === "evaluation" && <EvaluationView contextId={route.contextId} ruleId={route.ruleId} query={query} />}
        {route.view === "rules" && <RulesView />}
        {route.view === "rule" && <RuleView ruleId={route.ruleId} query={query} />}
        {route.view === "missing" && <p>Nothing lives at {route.path}.</p>}
      </main>
    </>
  );
}

const root = document.getElementById("app")!;
// The boot message is replaced, not diffed against.
root.textContent = "";
render(<App />, root);
