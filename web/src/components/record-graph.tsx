/**
 * The record graph of a case as SVG: records as nodes by model, relationships as edges,
 * a link removed through the API drawn dashed and labelled "removed". Nodes are buttons
 * (Tab to reach, Enter to open). Large models are aggregated (see graph-layout.ts). This
 * module and dagre are a chunk of their own, loaded when a case is first shown.
 */
import { useMemo } from "preact/hooks";
import type { DdsRecord, Model } from "../../../src/contract/schemas/index.js";
import { estimateText, layoutGraph, NODE_H, NODE_W, type GraphEdge, type GraphLink, type GraphNode } from "./graph-layout.js";

/** The font of edge labels: the canvas that measures them and the SVG that draws them use the same. */
const LABEL_FONT = "11px system-ui, sans-serif";

let canvas: CanvasRenderingContext2D | null | undefined;
/** A label's width in pixels, measured in the font it is drawn in (an estimate without a canvas). */
function measure(text: string): number {
  canvas ??= document.createElement("canvas").getContext("2d");
  if (!canvas) return estimateText(text);
  canvas.font = LABEL_FONT;
  return Math.ceil(canvas.measureText(text).width);
}

/** The edge through dagre's points: a line for two, a smooth curve through more. */
function edgePath(e: GraphEdge): string {
  const [first, ...rest] = e.points;
  if (!first) return "";
  if (rest.length === 1) return `M ${first.x} ${first.y} L ${rest[0].x} ${rest[0].y}`;
  // Through the midpoints, with each point as the control: smooth, and it still passes the label's side.
  let d = `M ${first.x} ${first.y}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const mid = { x: (rest[i].x + rest[i + 1].x) / 2, y: (rest[i].y + rest[i + 1].y) / 2 };
    d += ` Q ${rest[i].x} ${rest[i].y}, ${mid.x} ${mid.y}`;
  }
  const last = rest[rest.length - 1];
  return `${d} L ${last.x} ${last.y}`;
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
  const layout = useMemo(() => layoutGraph(props.records, props.links, props.models, measure), [props.records, props.links, props.models]);
  const open = (n: GraphNode) => props.onOpen(n.count ? { model: n.model } : { recordId: n.recordId });
  return (
    <div class="graph-scroll">
      <svg class="graph" width={layout.width} height={layout.height} role="group" aria-label={`Record graph: ${props.records.length} records, ${props.links.length} links`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrow" />
          </marker>
        </defs>
        {layout.edges.map((e) => (
          <g class={`edge${e.removed ? " removed" : ""}`} data-edge={`${e.name}${e.removed ? ":removed" : ""}`}>
            <title>{`${e.from.model} → ${e.name} → ${e.to.model}${e.count > 1 ? ` (${e.count} links)` : ""}${e.removed ? `, removed ${e.removedAt}` : ""}`}</title>
            <path d={edgePath(e)} marker-end="url(#arrow)" />
            <text x={e.labelX} y={e.labelY} text-anchor="middle" dominant-baseline="central" style={{ font: LABEL_FONT }} class="edge-label">
              {e.text}
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
