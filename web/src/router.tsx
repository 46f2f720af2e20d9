/**
 * The studio's addresses. Every view has a path that can be pasted into a ticket; a view's
 * state (filters, the selected record or node, the diff baseline) lives in the query.
 *
 *   /cases?type=&status=&freshness=&meta=k=v&rule=&outcome=     the cases
 *   /cases/:contextId?record=&field=&model=                      a case
 *   /cases/:contextId/evaluations/:ruleId?input=&diff=           an evaluation
 *   /rules                                                       the rules
 *   /rules/:ruleId?case=                                         a rule
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

/** A parsed address. */
export type Route =
  | { view: "cases" }
  | { view: "case"; contextId: string }
  | { view: "evaluation"; contextId: string; ruleId: string }
  | { view: "rules" }
  | { view: "rule"; ruleId: string }
  | { view: "missing"; path: string };

const seg = "([^/]+)";
const PATTERNS: [RegExp, (m: string[]) => Route][] = [
  [/^\/(?:cases)?\/?$/, () => ({ view: "cases" })],
  [new RegExp(`^/cases/${seg}/?$`), (m) => ({ view: "case", contextId: m[1] })],
  [new RegExp(`^/cases/${seg}/evaluations/${seg}/?$`), (m) => ({ view: "evaluation", contextId: m[1], ruleId: m[2] })],
  [/^\/rules\/?$/, () => ({ view: "rules" })],
  [new RegExp(`^/rules/${seg}/?$`), (m) => ({ view: "rule", ruleId: m[1] })],
];

/** The route of a path. */
export function parseRoute(path: string): Route {
  for (const [re, make] of PATTERNS) {
    const m = re.exec(path);
    if (m) return make(m.map((x) => (x === undefined ? x : decodeURIComponent(x))));
  }
  return { view: "missing", path };
}

const CHANGE = "studio:navigate";

/** Goes to `href` (same origin), adding a history entry unless `replace`. */
export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  dispatchEvent(new Event(CHANGE));
}

/** The current location, re-rendering on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: location.pathname, query: new URLSearchParams(location.search) });
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const update = () => setLoc(read());
    addEventListener("popstate", update);
    addEventListener(CHANGE, update);
    return () => {
      removeEventListener("popstate", update);
      removeEventListener(CHANGE, update);
    };
  }, []);
  return loc;
}

/** `path?query` with empty values dropped. */
export function href(path: string, query: Record<string, string | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** Changes some query parameters of the current address (no new history entry by default). */
export function setQuery(changes: Record<string, string | undefined | null>, push = false): void {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === null || v === "") q.delete(k);
    else q.set(k, v);
  }
  const s = q.toString();
  navigate(`${location.pathname}${s ? `?${s}` : ""}`, !push);
}

/** A link that navigates in the page (a modified click still opens a new tab). */
export function Link(props: { href: string; children: ComponentChildren; class?: string; "aria-current"?: "page"; "aria-label"?: string }) {
  const { href: to, children, ...rest } = props;
  const onClick = (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={to} onClick={onClick}>
      {children}
    </a>
  );
}
