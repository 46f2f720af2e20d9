/**
 * The record graph of a case as SVG: records as nodes by model, relationships as edges,
 * a link removed through the API drawn dashed and labelled "removed". Nodes are buttons
 * (Tab to reach, Enter to open). Large models are aggregated (see graph-layout.ts).
 */
import { useMemo } from "preact/hooks";
import type { DdsRecord, Model } from "../../../src/contract/schemas/index.js";
import { layoutGraph, NODE_H, NODE_W, type GraphEdge, type GraphLink, type GraphNode } from "./graph-layout.js";

function edgePath(e: GraphEdge): string {
  const { from, to } = e;
  if (from === to) {
    const x = from.x + NODE_W;
    const y = from.y + NODE_H / 2;
    return `M ${x} ${y - 8} C ${x + 40} ${y - 30}, ${x + 40} ${y + 30}, ${x} ${y + 8}`;
  }
  const back = to.x <= from.x;
  const x1 = back ? from.x : from.x + NODE_W;
  const x2 = back ? to.x + NODE_W : to.x;
  const y1 = from.y + NODE_H / 2;
  const y2 = to.y + NODE_H / 2;
  const bend = back ? -60 : 45;
  return `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`;
}

/** An edge's label sits mid-way; a link pointing back is labelled below the one going out. */
function labelAt(e: GraphEdge): { x: number; y: number; "text-anchor": "middle" } {
  const back = e.to.x <= e.from.x && e.from !== e.to;
  const x1 = back ? e.from.x : e.from.x + NODE_W;
  const x2 = back ? e.to.x + NODE_W : e.to.x;
  const y = (e.from.y + e.to.y) / 2 + NODE_H / 2;
  return { x: (x1 + x2) / 2, y: back ? y + 13 : y - 5, "text-anchor": "middle" };
}

function Node(props: { node: GraphNode; selected: boolean; onOpen(node: GraphNode): void }) {
  const { node } = props;
  const name = node.count ? `${node.model}: ${node.label}` : `${node.model} ${node.label}`.trim();
  const key = (e: KeyboardEvent) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      props.onOpen(node);
    }
  };
  return (
    <g
      class={`node${props.selected ? " selected" : ""}${node.count ? " aggregate" : ""}`}
      transform={`translate(${node.x},${node.y})`}
      role="button"
      // Lower case: SVG attributes are case-sensitive, and Preact sets them as written.
      tabindex={0}
      aria-label={`${name}${node.issues ? `, ${node.issues} issue(s)` : ""}`}
      aria-pressed={props.selected}
      data-node={node.id}
      onClick={() => props.onOpen(node)}
      onKeyDown={key}
    >
      <rect width={NODE_W} height={NODE_H} rx={6} />
      <text x={10} y={16} class="node-model">
        {node.model}
        {node.issues ? " ⚠" : ""}
      </text>
      <text x={10} y={32} class="node-label">
        {node.label.length > 26 ? `${node.label.slice(0, 25)}…` : node.label || "—"}
      </text>
    </g>
  );
}

/** The graph; `onOpen` gets a record id, or a model name for an aggregate node. */
export function RecordGraph(props: { records: DdsRecord[]; links: GraphLink[]; models: Model[]; selected?: string | null; onOpen(target: { recordId?: string; model?: string }): void }) {
  const layout = useMemo(() => layoutGraph(props.records, props.links, props.models), [props.records, props.links, props.models]);
  const open = (n: GraphNode) => props.onOpen(n.count ? { model: n.model } : { recordId: n.recordId });
  return (
    <div class="graph-scroll">
      <svg class="graph" width={layout.width + 60} height={layout.height + 10} role="group" aria-label={`Record graph: ${props.records.length} records, ${props.links.length} links`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrow" />
          </marker>
        </defs>
        {layout.edges.map((e) => (
          <g class={`edge${e.removed ? " removed" : ""}`} data-edge={`${e.name}${e.removed ? ":removed" : ""}`}>
            <title>{`${e.from.model} → ${e.name} → ${e.to.model}${e.count > 1 ? ` (${e.count} links)` : ""}${e.removed ? `, removed ${e.removedAt}` : ""}`}</title>
            <path d={edgePath(e)} marker-end="url(#arrow)" />
            <text {...labelAt(e)} class="edge-label">
              {e.name}
              {e.count > 1 ? ` ×${e.count}` : ""}
              {e.removed ? " (removed)" : ""}
            </text>
          </g>
        ))}
        {layout.nodes.map((n) => (
          <Node node={n} selected={n.recordId === props.selected || n.model === props.selected} onOpen={open} />
        ))}
      </svg>
    </div>
  );
}
