import type { EngineContext } from "../engine-context.js";
import { renameSegment, rewriteVarPaths } from "../models/rename-paths.js";
import type { RuleRepo } from "../store/rule-repo.js";

/** Applies a path rewrite to every rule's expression (without a version bump: same meaning). */
function rewriteRules(rules: RuleRepo, rewrite: (path: string) => string): void {
  for (const rule of rules.all()) {
    const before = JSON.parse(rule.expression) as unknown;
    const after = JSON.stringify(rewriteVarPaths(before, rewrite));
    if (after !== rule.expression) rules.update(rule.id, { expression: after });
  }
}

/**
 * Keeps rules working across renames: `Model.old` and `Source.rel.old` (where `rel`
 * targets the model) follow a field rename; `Old.x` follows a model rename.
 */
export function createRuleRenames(ctx: EngineContext, rules: RuleRepo) {
  return {
    field(model: { id: string; name: string }, old: string, next: string): void {
      const via: string[][] = [[model.name]];
      for (const m of ctx.models.all()) {
        for (const r of m.relationships) if (r.target === model.id || r.target === model.name) via.push([m.name, r.name]);
      }
      rewriteRules(rules, (p) => via.reduce((acc, prefix) => renameSegment(acc, prefix, old, next), p));
    },
    model(old: string, next: string): void {
      rewriteRules(rules, (p) => (p === old || p.startsWith(`${old}.`) ? next + p.slice(old.length) : p));
    },
  };
}
