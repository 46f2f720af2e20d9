import type { EngineContext } from "../engine-context.js";
import type { StoredModel } from "../models/model-types.js";
import { statements } from "../store/statements.js";

/**
 * Keeps parsed models between ingests. A cached model is reused only while its row's
 * version, status and updatedAt are unchanged, which one indexed lookup confirms; so a
 * change made by another process is seen at once.
 */
export function createModelCache(ctx: EngineContext) {
  const cache = new Map<string, { stamp: string; model: StoredModel }>();
  const q = statements(ctx.store.raw);
  return {
    get(modelId: string): StoredModel | undefined {
      const id = modelId.toLowerCase();
      const row = q("SELECT version || ':' || status || ':' || updated_at FROM models WHERE id = ? AND workspace = ? AND deleted_at IS NULL")
        .pluck()
        .get(id, ctx.workspace) as string | undefined;
      if (row === undefined) return undefined;
      const hit = cache.get(id);
      if (hit && hit.stamp === row) return hit.model;
      const model = ctx.models.get(id);
      if (model) cache.set(id, { stamp: row, model });
      return model;
    },
    /** Names of every field the model ever had (removed ones too), by fieldId. */
    fieldNames(modelId: string): Map<string, string> {
      const rows = q("SELECT id, name FROM fields WHERE model_id = ?").all(modelId) as { id: string; name: string }[];
      return new Map(rows.map((r) => [r.id, r.name]));
    },
  };
}

/** The model cache type. */
export type ModelCache = ReturnType<typeof createModelCache>;
