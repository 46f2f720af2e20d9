/**
 * Which record each element of `all`/`some`/`none`/`map`/`filter`/`reduce` is. The trace
 * numbers an element sub-tree by its index (`[2]`) in the array the operator walked; when
 * that array is a rule input read straight from a `var` (`Applicant.creditScore`,
 * `Loan.applicants.income`, `Applicant`), its lineage lists one source per element in the
 * same order (records oldest first, as the rule saw them), so element i is source i's
 * record. `trace`, `rules eval` and the studio's trace tree label elements with it.
 */
import { identityLabel, recordsOfPath, type InputExplanation } from "./input-sources.js";
import type { LineageReader } from "./lineage-reader.js";
import { SCOPED_OPS, type TraceNode } from "./trace-align.js";

/** The `var` path a per-element operator's array came from, when it is a static top-level read. */
function sourcePath(node: TraceNode): string | undefined {
  const source = node.children.find((c) => c.role === "source");
  if (source?.step.op !== "var" || !Array.isArray(source.step.result)) return undefined;
  const path = source.step.args?.[0];
  return typeof path === "string" && path !== "" ? path : undefined;
}

/**
 * The per-element operators of the top level (not those inside another's elements, whose
 * paths are relative to an element), with the path of the array each walked.
 */
function topLevelScoped(root: TraceNode): { node: TraceNode; path: string }[] {
  const out: { node: TraceNode; path: string }[] = [];
  const walk = (node: TraceNode): void => {
    if (SCOPED_OPS.has(node.step.op)) {
      const path = sourcePath(node);
      if (path !== undefined) out.push({ node, path });
      // Inside the elements, paths are the element's own: nothing below is a rule input.
      for (const c of node.children) if (c.role !== "element") walk(c);
      return;
    }
    for (const c of node.children) walk(c);
  };
  walk(root);
  return out;
}

/** The rule inputs whose records label elements: explain these (and only these) to label a tree. */
export function elementSourcePaths(root: TraceNode): string[] {
  return [...new Set(topLevelScoped(root).map((s) => s.path))];
}

/** How an element's record reads: its model and identity values, else its record id. */
export function elementRecordLabel(record: { model: string; label: string; recordId: string }): string {
  return `${record.model} ${record.label || record.recordId}`;
}

/**
 * Labels each traced element whose operator walked a rule input, by node key (`all.1[2]`),
 * from the records of that input in order: `recordsByPath` gives them (an input whose
 * record list does not have exactly one record per element leaves its elements
 * unlabelled: no lineage, or a value the rule computed).
 */
function labelElements(root: TraceNode, recordsByPath: ReadonlyMap<string, readonly string[]>): Map<string, string> {
  const out = new Map<string, string>();
  for (const { node, path } of topLevelScoped(root)) {
    const labels = recordsByPath.get(path) ?? [];
    const array = node.children.find((c) => c.role === "source")!.step.result as unknown[];
    if (labels.length === 0 || labels.length !== array.length) continue;
    for (const c of node.children) if (c.role === "element" && c.element !== undefined) out.set(c.key, labels[c.element]);
  }
  return out;
}

/** The labels of the element sub-trees (`Applicant applicantId=a2`), by node key, from the inputs' lineage. */
export function elementLabels(root: TraceNode, inputs: readonly InputExplanation[]): Map<string, string> {
  return labelElements(root, new Map(inputs.map((i) => [i.path, i.sources.map(elementRecordLabel)])));
}

/**
 * The same labels for a view that has not explained its inputs (the studio's trace): the
 * records of just the inputs that label elements, read as lists (no lineage), so a case
 * of thousands of records costs a few pages.
 */
export async function loadElementLabels(reader: LineageReader, contextId: string, root: TraceNode): Promise<Map<string, string>> {
  const byPath = new Map<string, string[]>();
  for (const path of elementSourcePaths(root)) {
    const found = await recordsOfPath(reader, contextId, path, true);
    if ("note" in found) continue;
    const labels: string[] = [];
    for (const r of found.records) {
      labels.push(elementRecordLabel({ model: (await reader.model(r.modelId))?.name ?? r.modelId, label: await identityLabel(reader, r), recordId: r.recordId }));
    }
    byPath.set(path, labels);
  }
  return labelElements(root, byPath);
}
