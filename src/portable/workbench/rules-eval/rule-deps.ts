/**
 * Static dependencies: which model fields a rule's expression reads, directly and through
 * the computed fields it reads, down to stored fields (`rules deps`), and, reversed, which
 * rules and computed fields read a field, directly or through other computed fields
 * (`rules deps --field Model.field`). The two walk the same graph, so whatever one finds
 * the other finds too.
 */
import type { Model, Rule } from "../../../contract/schemas/index.js";
import { collectVarPaths } from "../../json-logic/collect-var-paths.js";
import { mapRulePath, mapWithin, type PathRead } from "../../rule-paths.js";

/** A rule or computed field that reads a given field. */
export interface FieldReader {
  kind: "rule" | "computed";
  /** The rule's name, or `Model.field` of the computed field. */
  name: string;
  ruleId?: string;
  /** The path in its expression. */
  path: string;
  /** The computed fields between the given field and this reader, nearest first. */
  via: string[];
}

/** What every rule reads. */
export function ruleReads(models: Model[], rule: Rule): PathRead[] {
  return collectVarPaths(rule.expression).map((p) => mapRulePath(models, p));
}

/** A dependency of a rule: something it reads, itself or through computed fields. */
export interface RuleDependency extends PathRead {
  /** The computed fields between the rule and this read, nearest the rule first (empty: the rule's own path). */
  through: string[];
}

/**
 * Everything a rule depends on: what its expression reads, then what each computed field
 * among those reads, breadth first, down to stored fields (each listed once, by its
 * shortest chain). Paths that map to nothing known are kept as the expression has them.
 */
export function ruleDependencies(models: Model[], rule: Rule): RuleDependency[] {
  const computed = computedReads(models);
  const out: RuleDependency[] = [];
  const seen = new Set<string>();
  const queue: RuleDependency[] = ruleReads(models, rule).map((r) => ({ ...r, through: [] }));
  while (queue.length > 0) {
    const dep = queue.shift()!;
    const key = dep.reads ?? `?${dep.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(dep);
    if (dep.kind !== "computed" || dep.reads === null) continue;
    for (const r of computed.get(dep.reads) ?? []) queue.push({ ...r, through: [...dep.through, dep.reads] });
  }
  return out;
}

/** What every computed field reads, keyed by `Model.field`. */
export function computedReads(models: Model[]): Map<string, PathRead[]> {
  const out = new Map<string, PathRead[]>();
  for (const m of models) {
    for (const f of m.fields) {
      if (!f.computed) continue;
      out.set(`${m.name}.${f.name}`, collectVarPaths(f.computed.expression).map((p) => mapWithin(models, m, p, p.split("."))));
    }
  }
  return out;
}

/**
 * Everything that reads `target` (`Model.field`): computed fields that read it, then
 * whatever reads those, breadth first, and the rules reading any of them.
 */
export function readersOf(models: Model[], rules: Rule[], target: string): FieldReader[] {
  const computed = computedReads(models);
  const rulePaths = rules.map((r) => ({ rule: r, reads: ruleReads(models, r) }));
  const out: FieldReader[] = [];
  const seen = new Set([target]);
  const queue: { node: string; via: string[] }[] = [{ node: target, via: [] }];
  while (queue.length > 0) {
    const { node, via } = queue.shift()!;
    for (const [name, reads] of computed) {
      const hit = reads.find((r) => r.reads === node);
      if (!hit) continue;
      out.push({ kind: "computed", name, path: hit.path, via });
      if (!seen.has(name)) {
        seen.add(name);
        queue.push({ node: name, via: [...via, name] });
      }
    }
    for (const { rule, reads } of rulePaths) {
      const hit = reads.find((r) => r.reads === node);
      if (hit) out.push({ kind: "rule", name: rule.name, ruleId: rule.ruleId, path: hit.path, via });
    }
  }
  return out;
}
