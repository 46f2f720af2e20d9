/** The rule's expression as a tree, each branch point with the branches tests took (✓) or not (✗). */
import { branchesHit, branchPoints } from "../../../src/portable/workbench/rules-test/coverage.js";
import { joinNodePath, operationOf, type TraceNode } from "../../../src/portable/workbench/trace/trace-align.js";
import { formatTraceValue } from "../../../src/portable/workbench/trace/trace-value.js";

function Node(props: { expr: unknown; path: string; hit: Set<string>; points: Map<string, { op: string; labels: string[] }> }) {
  const operation = operationOf(props.expr);
  if (!operation) return <li class="muted">{formatTraceValue(props.expr)}</li>;
  const point = props.points.get(props.path);
  const varPath = operation.op === "var" ? formatTraceValue(operation.args[0]) : null;
  return (
    <li data-path={props.path}>
      <code>{varPath !== null ? `var ${varPath}` : operation.op}</code>
      {point && (
        <span class="branches">
          {point.labels.map((l) => {
            const covered = props.hit.has(`${props.path} ${point.op}: ${l}`);
            return (
              <span class={`branch ${covered ? "covered" : "uncovered"}`} aria-label={`${l}: ${covered ? "covered" : "not covered"}`}>
                {covered ? "✓" : "✗"} {l}
              </span>
            );
          })}
        </span>
      )}
      {varPath === null && (
        <ul>
          {operation.args.map((a, i) => (
            <Node expr={a} path={joinNodePath(props.path, `${operation.op}.${i}`)} hit={props.hit} points={props.points} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** The outline with coverage marks from the given aligned traces. */
export function CoverageTree(props: { expression: unknown; traces: TraceNode[] }) {
  const points = new Map(branchPoints(props.expression).map((p) => [p.path, p]));
  const hit = branchesHit(props.traces);
  return (
    <ul class="coverage-tree" aria-label="Branch coverage">
      <Node expr={props.expression} path="$" hit={hit} points={points} />
    </ul>
  );
}
