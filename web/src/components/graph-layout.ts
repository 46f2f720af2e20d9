/**
 * The record graph's layout: models in columns by the relationships (see columnsOf),
 * records stacked in their model's place. A model with more
 * records than {@link AGGREGATE_OVER} in the case is drawn as one aggregate node and its
 * links as counted bundles, so a case of thousands of records stays a few dozen shapes.
 */
import type { DdsRecord, Model } from "../../../src/contract/schemas/index.js";

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
const COL_GAP = 70;
const ROW_GAP = 14;
/** Extra space between two models sharing a column. */
const MODEL_GAP = 18;
const PAD = 12;

/** A drawn node: one record, or every record of a model. */
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
}

/** The laid-out graph and its size. */
export interface GraphLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

/** `applicantId=a1` from a record's identity fields, or a short id. */
export function recordLabel(r: DdsRecord, model: Model | undefined): string {
  const identity = model?.identity ?? [];
  if (identity.length === 0) return model ? "" : r.recordId.slice(0, 8);
  return identity.map((f) => `${f}=${typeof r.data[f] === "string" ? r.data[f] : JSON.stringify(r.data[f] ?? null)}`).join(", ");
}

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
    const base = column.size === 0 ? 0 : Math.max(...column.values()) + 1;
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

/** Lays out a case's records and links. */
export function layoutGraph(records: DdsRecord[], links: GraphLink[], models: Model[]): GraphLayout {
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
  const columns = Math.max(0, ...column.values()) + 1;
  const nextY = Array.from({ length: columns }, () => PAD);
  const nodeOf = new Map<string, GraphNode>();
  const nodes: GraphNode[] = [];
  for (const name of [...byModel.keys()].sort((a, b) => column.get(a)! - column.get(b)! || a.localeCompare(b))) {
    const list = byModel.get(name)!;
    const col = column.get(name)!;
    const x = PAD + col * (NODE_W + COL_GAP);
    if (list.length > AGGREGATE_OVER) {
      const node: GraphNode = { id: `model:${name}`, model: name, label: `${list.length.toLocaleString()} records`, x, y: nextY[col], count: list.length };
      nodes.push(node);
      for (const r of list) nodeOf.set(r.recordId, node);
    } else {
      list.forEach((r, row) => {
        const node: GraphNode = { id: r.recordId, model: name, label: recordLabel(r, modelById.get(r.modelId)), x, y: nextY[col] + row * (NODE_H + ROW_GAP), recordId: r.recordId, issues: r.issues.length };
        nodes.push(node);
        nodeOf.set(r.recordId, node);
      });
    }
    nextY[col] += (list.length > AGGREGATE_OVER ? 1 : list.length) * (NODE_H + ROW_GAP) + MODEL_GAP;
  }
  const height = Math.max(...nextY) - MODEL_GAP - ROW_GAP;
  const bundles = new Map<string, GraphEdge>();
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
  return { nodes, edges: [...bundles.values()], width: PAD * 2 + columns * (NODE_W + COL_GAP) - COL_GAP, height: height + PAD };
}
