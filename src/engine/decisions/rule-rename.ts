import type { Scope } from "../engine-context.js";
import { renameSegment, rewriteVarPaths } from "../models/rename-paths.js";

/** Applies a path rewrite to every rule's expression (without a version bump: same meaning). */
async function rewriteRules(s: Scope, rewrite: (path: string) => string): Promise<void> {
  for (const rule of await s.rules.all()) {
    const before = JSON.parse(rule.expression) as unknown;
    const after = JSON.stringify(rewriteVarPaths(before, rewrite));
    if (after !== rule.expression) await s.rules.update(rule.id, { expression: after });
  }
}

/**
 * Keeps rules working across renames: `Model.old` and `Source.rel.old` (where `rel`
 * targets the model) follow a field rename; `Old.x` follows a model rename.
 */
export const ruleRenames = {
  async field(s: Scope, model: { id: string; name: string }, old: string, next: string): Promise<void> {
    const via: string[][] = [[model.name]];
    for (const m of await s.models.all()) {
      for (const r of m.relationships) if (r.target === model.id || r.target === model.name) via.push([m.name, r.name]);
    }
    await rewriteRules(s, (p) => via.reduce((acc, prefix) => renameSegment(acc, prefix, old, next), p));
  },
  async model(s: Scope, old: string, next: string): Promise<void> {
    await rewriteRules(s, (p) => (p === old || p.startsWith(`${old}.`) ? next + p.slice(old.length) : p));
  },
};
