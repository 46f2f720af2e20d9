import type { Scope } from "../engine-context.js";
import type { StoredModel } from "./model-types.js";
import { renameSegment, rewriteVarPaths } from "./rename-paths.js";

/**
 * After field `old` of `model` is renamed to `next`, rewrites every name-based reference
 * so bindings keep working: the model's own computed expressions and match fields, and
 * other models' relationship paths (`rel.old`) and match target fields. Rules hook in
 * through `hooks.onFieldRename`.
 */
export async function renameCascade(s: Scope, model: StoredModel, old: string, next: string): Promise<void> {
  for (const m of await s.models.all()) {
    const own = m.id === model.id;
    const rels = m.relationships.filter((r) => r.target === model.id || r.target === model.name);
    if (!own && rels.length === 0) continue;
    for (const f of m.fields) {
      if (!f.computed) continue;
      let expression = f.computed.expression;
      if (own) expression = rewriteVarPaths(expression, (p) => (p === old ? next : p));
      for (const r of rels) expression = rewriteVarPaths(expression, (p) => renameSegment(p, [r.name], old, next));
      if (JSON.stringify(expression) !== JSON.stringify(f.computed.expression)) {
        await s.models.updateField(f.id, { computed: { expression } });
      }
    }
    const relationships = m.relationships.map((r) => {
      if (!r.match) return r;
      const match = { ...r.match };
      if (own && match.sourceField === old) match.sourceField = next;
      if (rels.includes(r) && match.targetField === old) match.targetField = next;
      return { ...r, match };
    });
    if (JSON.stringify(relationships) !== JSON.stringify(m.relationships)) {
      await s.models.update(m.id, { relationships });
    }
  }
  await s.hooks.onFieldRename(s, model, old, next);
}
