import type { Output } from "../output/output.js";
import { canonicalJson } from "./canonical.js";
import type { ApplyResult } from "./apply-run.js";
import type { PlanChange, PlanItem } from "./plan-types.js";

const PAST: Record<PlanItem["action"], string> = { create: "created", update: "updated", unchanged: "unchanged" };

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** `model/Loan`: kind and name, as kubectl names resources. */
export function itemRef(item: PlanItem): string {
  return `${item.kind.toLowerCase()}/${item.name}`;
}

/** Arrays of one length compare item by item; otherwise the whole array changes. */
const sameShapeArrays = (a: unknown, b: unknown): a is unknown[] => Array.isArray(a) && Array.isArray(b) && a.length === b.length;

/**
 * Splits a change of two objects (or two arrays of one length) into the changes of the
 * keys that differ, recursively, so a changed threshold deep in an expression reads as
 * `expression.and.1.<=.1: 0.43 → 0.45` rather than two whole expressions.
 */
function leafChanges(change: PlanChange): PlanChange[] {
  const { from, to } = change;
  const arrays = sameShapeArrays(from, to);
  if (change.op !== "change" || (!arrays && (!isPlainObject(from) || !isPlainObject(to)))) return [change];
  const a = from as Record<string, unknown>;
  const b = to as Record<string, unknown>;
  const keys = arrays ? Object.keys(a) : [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys
    .filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k]))
    .flatMap((k) => {
      const path = `${change.path}.${k}`;
      if (a[k] === undefined) return [{ path, op: "add" as const, to: b[k] }];
      if (b[k] === undefined) return [{ path, op: "remove" as const, from: a[k] }];
      return leafChanges({ path, op: "change", from: a[k], to: b[k] });
    });
}

/** One diff line: `+ path: value`, `- path: value` or `~ path: old → new`. */
function changeLine(c: PlanChange): string {
  const json = (v: unknown) => JSON.stringify(v);
  if (c.path === "contributions") return `+ ${String(c.to)} contribution(s)`;
  if (c.op === "add") return `+ ${c.path}: ${json(c.to)}`;
  if (c.op === "remove") return `- ${c.path}: ${json(c.from)}`;
  return `~ ${c.path}: ${json(c.from)} → ${json(c.to)}`;
}

/** The lines of `--diff`: each created or changed resource and what changes in it. */
export function diffLines(result: ApplyResult): string[] {
  const lines: string[] = [];
  for (const item of result.items) {
    if (item.action === "unchanged") continue;
    const mark = item.action === "create" ? "+" : "~";
    lines.push(`${mark} ${itemRef(item)}  (${item.source})`);
    if (item.action === "create" && item.contributions && item.contributions.add > 0) lines.push(`    + ${item.contributions.add} contribution(s)`);
    for (const c of item.changes.flatMap(leafChanges)) lines.push(`    ${changeLine(c)}`);
  }
  return lines;
}

/** One line per document, kubectl style: `model/Loan created`, `rule/x unchanged (dry run)`. */
export function renderApply(out: Output, result: ApplyResult): void {
  const suffix = result.dryRun ? " (dry run)" : "";
  for (const item of result.items) {
    const added = item.contributions?.add ?? 0;
    const evidence = added > 0 ? `, ${added} contribution(s) ${result.dryRun ? "to add" : "added"}` : "";
    const text = `${itemRef(item)} ${PAST[item.action]}${evidence}${suffix}`;
    out.line(item.action === "create" ? out.c.green(text) : item.action === "update" ? out.c.yellow(text) : out.c.dim(text));
  }
  out.info(summaryLine(result));
}

/** `3 created, 1 updated, 10 unchanged, 240 contribution(s) added`, or `no changes`. */
export function summaryLine(result: ApplyResult): string {
  if (!result.changed) return "no changes";
  const { create, update, unchanged, contributionsAdded } = result.summary;
  const added = result.dryRun || contributionsAdded === 0 ? "" : `, ${contributionsAdded} contribution(s) added`;
  return `${result.dryRun ? "would apply: " : ""}${create} created, ${update} updated, ${unchanged} unchanged${added}`;
}
