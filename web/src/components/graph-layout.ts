/**
 * The record graph's layout, by dagre: models ranked left to right by their relationships
 * (see columnsOf: the parent side first, whatever links point back), records ordered within
 * a rank to cross as few edges as possible, and every edge label given a box of its own
 * size that nodes and other labels keep clear of. A model with more records than
 * {@link AGGREGATE_OVER} in the case is drawn as one aggregate node and its links as counted
 * bundles, so a case of thousands of records stays a few dozen shapes. dagre is in the
 * graph's own chunk, loaded when a case is first opened.
 */
import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from "@dagrejs/dagre";
import type { DdsRecord, Model } from "../../../src/contract/schemas/index.js";
import { recordLabel } from "./record-label.js";
import { maxOf } from "../../../src/portable/arrays.js";

/** One link of the record graph; `removedAt` is set for a link removed through the API. */
export interface GraphLink {
  source: string;
  target: string;
  name: string;
  removedAt: string | null;
}

/** Models with more records than this in the case are aggregated. */
export const AGGREGATE_OVER = 40;
/** A node's size in pixels. */
export const NODE_W = 170;
/** A node's height in pixels. */
export const NODE_H = 40;
/** An edge label's height, and the room left around its text. */
export const LABEL_H = 16;
const LABEL_PAD = 8;
const PAD = 12;

/** A drawn node: one record, or every record of a model (x, y: its top-left corner). */
export interface GraphNode {
  id: string;
  model: string;
  label: string;
  x: number;
  y: number;
  /** Set for an aggregate node: how many records it stands for. */
  count?: number;
  recordId?: string;
  /** The record has validation issues. */
  issues?: number;
}

/** A drawn edge (a bundle of links between aggregates carries their count). */
export interface GraphEdge {
  from: GraphNode;
  to: GraphNode;
  name: string;
  removed: boolean;
  removedAt: string | null;
  count: number;
  /** The text of its label. */
  text: string;
  /** Where it runs, from `from` to `to`. */
  points: { x: number; y: number }[];
  /** The centre of its label's box. */
  labelX: number;
  labelY: number;
}

/** The laid-out graph and its size. */
export interface GraphLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

/** Measures a label's text in pixels (the page measures with its font; tests estimate). */
export type MeasureText = (text: string) => number;

/** A generous estimate (7 px a character at 11 px) for callers without a canvas. */
export const estimateText: MeasureText = (text) => text.length * 7;

/** Re-exported for the case view's lists. */
export { recordLabel };

/**
 * The column of each model: breadth-first from the roots (models nothing links to; in a
 * cycle, the model that most declares `many` relationships to others, then the one with
 * the most links out), so `Loan` comes first, `Applicant` and
 * `Property` next, `Employment` after them, whatever links point back.
 */
function columnsOf(names: string[], links: [string, string][], parentScore: Map<string, number>): Map<string, number> {
  const out = new Map(names.map((n) => [n, new Set<string>()]));
  const into = new Map(names.map((n) => [n, new Set<string>()]));
  for (const [a, b] of links) {
    if (a === b) continue;
    out.get(a)!.add(b);
    into.get(b)!.add(a);
  }
  const column = new Map<string, number>();
  const score = (n: string) => (parentScore.get(n) ?? 0) * 1000 + out.get(n)!.size - into.get(n)!.size;
  while (column.size < names.length) {
    const left = names.filter((n) => !column.has(n));
    const roots = left.filter((n) => [...into.get(n)!].every((m) => column.has(m)));
    const start = roots.length > 0 ? roots : [left.sort((a, b) => score(b) - score(a) || a.localeCompare(b))[0]];
    const base = column.size === 0 ? 0 : maxOf(column.values()) + 1;
    const queue = start.map((n) => {
      column.set(n, base);
      return n;
    });
    while (queue.length > 0) {
      const n = queue.shift()!;
      for (const m of [...out.get(n)!].sort()) {
        if (!column.has(m)) {
          column.set(m, column.get(n)! + 1);
          queue.push(m);
        }
      }
    }
  }
  return column;
}

/** The text an edge's label shows. */
function edgeText(name: string, count: number, removed: boolean): string {
  return `${name}${count > 1 ? ` ×${count}` : ""}${removed ? " (removed)" : ""}`;
}

/** Lays out a case's records and links; `measure` sizes the edge labels. */
export function layoutGraph(records: DdsRecord[], links: GraphLink[], models: Model[], measure: MeasureText = estimateText): GraphLayout {
  const modelById = new Map(models.map((m) => [m.modelId, m]));
  const nameOf = (r: DdsRecord) => modelById.get(r.modelId)?.name ?? r.modelId;
  const byModel = new Map<string, DdsRecord[]>();
  for (const r of records) byModel.set(nameOf(r), [...(byModel.get(nameOf(r)) ?? []), r]);
  const recordModel = new Map(records.map((r) => [r.recordId, nameOf(r)]));
  const modelLinks = links.flatMap((l): [string, string][] => {
    const a = recordModel.get(l.source);
    const b = recordModel.get(l.target);
    return a && b ? [[a, b]] : [];
  });
  // A model declaring a `many` relationship is the parent side of it.
  const parentScore = new Map<string, number>();
  for (const m of models) {
    for (const rel of m.relationships) {
      if (rel.cardinality !== "many") continue;
      parentScore.set(m.name, (parentScore.get(m.name) ?? 0) + 1);
      const target = modelById.get(rel.target)?.name ?? rel.target;
      parentScore.set(target, (parentScore.get(target) ?? 0) - 1);
    }
  }
  const column = columnsOf([...byModel.keys()], modelLinks, parentScore);

  const nodeOf = new Map<string, GraphNode>();
  const nodes: GraphNode[] = [];
  for (const name of [...byModel.keys()].sort((a, b) => column.get(a)! - column.get(b)! || a.localeCompare(b))) {
    const list = byModel.get(name)!;
    if (list.length > AGGREGATE_OVER) {
      const node: GraphNode = { id: `model:${name}`, model: name, label: `${list.length.toLocaleString()} records`, x: 0, y: 0, count: list.length };
      nodes.push(node);
      for (const r of list) nodeOf.set(r.recordId, node);
    } else {
      for (const r of list) {
        const node: GraphNode = { id: r.recordId, model: name, label: recordLabel(r, modelById.get(r.modelId)), x: 0, y: 0, recordId: r.recordId, issues: r.issues.length };
        nodes.push(node);
        nodeOf.set(r.recordId, node);
      }
    }
  }
  const bundles = new Map<string, Omit<GraphEdge, "text" | "points" | "labelX" | "labelY">>();
  for (const l of links) {
    const from = nodeOf.get(l.source);
    const to = nodeOf.get(l.target);
    if (!from || !to) continue;
    const removed = l.removedAt !== null;
    const key = `${from.id}\n${to.id}\n${l.name}\n${removed}`;
    const edge = bundles.get(key);
    if (edge) edge.count++;
    else bundles.set(key, { from, to, name: l.name, removed, removedAt: l.removedAt, count: 1 });
  }

  const g = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: true });
  g.setGraph({ rankdir: "LR", nodesep: 14, edgesep: 8, ranksep: 40, marginx: PAD, marginy: PAD });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: NODE_W, height: NODE_H });
  const drawn = [...bundles.entries()].map(([key, e]) => ({ key, ...e, text: edgeText(e.name, e.count, e.removed) }));
  for (const e of drawn) {
    // Ranked by model column: a link pointing back (Applicant.loan → Loan) is laid out
    // forwards and drawn backwards, so the parent model stays first.
    const back = column.get(e.to.model)! < column.get(e.from.model)!;
    const [v, w] = back ? [e.to.id, e.from.id] : [e.from.id, e.to.id];
    const minlen = e.from === e.to ? 1 : Math.max(1, Math.abs(column.get(e.to.model)! - column.get(e.from.model)!));
    g.setEdge(v, w, { width: measure(e.text) + LABEL_PAD, height: LABEL_H, labelpos: "c", minlen, back }, e.key);
  }
  dagre.layout(g);

  for (const n of nodes) {
    const placed = g.node(n.id);
    n.x = placed.x! - NODE_W / 2;
    n.y = placed.y! - NODE_H / 2;
  }
  const edges: GraphEdge[] = drawn.map(({ key, ...e }) => {
    const back = column.get(e.to.model)! < column.get(e.from.model)!;
    const [v, w] = back ? [e.to.id, e.from.id] : [e.from.id, e.to.id];
    const placed = g.edge(v, w, key);
    const points = ((placed.points ?? []) as { x: number; y: number }[]).map((p) => ({ x: p.x, y: p.y }));
    return { ...e, points: back ? points.reverse() : points, labelX: placed.x!, labelY: placed.y! };
  });
  const size = g.graph();
  return { nodes, edges, width: size.width ?? 0, height: size.height ?? 0 };
}
