/**
 * An evaluation's trace as a tree: every sub-expression with its value inline, passed in
 * green and failed in red, the deciding branch highlighted (the same deciders as `trace`'s
 * `◀ decided`), collapsible. `var` nodes offer their input's lineage; a coverage map marks
 * the branches tests took.
 */
import { useState } from "preact/hooks";
import { decidingPath, type TraceNode } from "../../../src/portable/workbench/trace/trace-align.js";
import { formatTraceValue } from "../../../src/portable/workbench/trace/trace-value.js";

/** What a node's line says (mirrors the terminal renderer's wording). */
function describe(node: TraceNode): { text: string; tone: "value" | "pass" | "fail" | "dim" } {
  const s = node.step;
  const fmt = (v: unknown) => formatTraceValue(v);
  const args = s.args ?? [];
  if (s.op === "value") return { text: fmt(s.result), tone: "dim" };
  if (s.op === "truncated") return { text: `… ${fmt(s.result)} more elements (not traced)`, tone: "dim" };
  if (s.op === "var") {
    const path = args[0] === undefined || args[0] === null || args[0] === "" ? '""' : String(args[0]);
    return { text: `var ${path}${args.length > 1 ? ` (default ${fmt(args[1])})` : ""} → ${fmt(s.result)}`, tone: s.passed ? "pass" : "fail" };
  }
  const call = s.children.length === 0 && args.length > 0 ? `(${args.map(fmt).join(", ")})` : "";
  return { text: `${s.op}${call} → ${fmt(s.result)}`, tone: s.passed ? "pass" : "fail" };
}

/** Options of the tree. */
export interface TraceTreeProps {
  root: TraceNode;
  /** Opens the lineage of a `var` path (absent: no lineage links, e.g. a data dry run). */
  onInput?(path: string): void;
  /** The input whose lineage is open. */
  activeInput?: string | null;
  label: string;
  /** The record of each element sub-tree, by node key (see element-records.ts). */
  elementLabels?: ReadonlyMap<string, string>;
}

function Row(props: TraceTreeProps & { node: TraceNode; onPath: Set<string>; depth: number }) {
  const { node } = props;
  const [open, setOpen] = useState(props.depth < 6 || props.onPath.has(node.key));
  const d = describe(node);
  const deciding = props.onPath.has(node.key);
  const varPath = node.step.op === "var" && typeof node.step.args?.[0] === "string" && node.step.args[0] !== "" ? (node.step.args[0] as string) : undefined;
  return (
    <li role="treeitem" aria-expanded={node.children.length ? open : undefined} aria-selected={deciding} data-key={node.key} data-deciding={deciding ? "true" : undefined} class={deciding ? "deciding" : ""}>
      <div class="trace-line">
        {node.children.length > 0 ? (
          <button class="toggle" aria-label={open ? "collapse" : "expand"} onClick={() => setOpen(!open)}>
            {open ? "▾" : "▸"}
          </button>
        ) : (
          <span class="toggle" aria-hidden="true" />
        )}
        {node.element !== undefined && (
          <span class="muted" data-element-record={props.elementLabels?.get(node.key)}>
            [{node.element}
            {props.elementLabels?.has(node.key) ? ` ${props.elementLabels.get(node.key)}` : ""}]{" "}
          </span>
        )}
        <span class={`tone-${d.tone}`}>{d.text}</span>
        {node.decided && <span class="decided-mark"> ◀ decided</span>}
        {varPath && props.onInput && (
          <button class={`linkish lineage-link${props.activeInput === varPath ? " active" : ""}`} onClick={() => props.onInput!(varPath)} aria-label={`lineage of ${varPath}`}>
            lineage
          </button>
        )}
        <span class="path muted">@{node.key}</span>
      </div>
      {open && node.children.length > 0 && (
        <ul role="group">
          {node.children.map((c) => (
            <Row {...props} node={c} depth={props.depth + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** The whole tree; the deciding path from the root is highlighted and kept open. */
export function TraceTree(props: TraceTreeProps) {
  const onPath = new Set(decidingPath(props.root).map((n) => n.key));
  return (
    <ul class="trace" role="tree" aria-label={props.label}>
      <Row {...props} node={props.root} onPath={onPath} depth={0} />
    </ul>
  );
}
