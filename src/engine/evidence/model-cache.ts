import type { Scope } from "../engine-context.js";
import type { StoredModel } from "../models/model-types.js";

/**
 * Keeps parsed models between ingests. A cached model is reused only while its row's
 * version, status and updatedAt are unchanged, which one indexed lookup confirms; so a
 * change made by another process (or node) is seen at once.
 */
export function createModelCache() {
  const cache = new Map<string, { stamp: string; model: StoredModel }>();
  return {
    /** Live models by id, in one lookup of their stamps; unknown ids map to undefined. */
    async getMany(s: Scope, modelIds: readonly string[]): Promise<Map<string, StoredModel | undefined>> {
      const ids = [...new Set(modelIds.map((id) => id.toLowerCase()))];
      const out = new Map<string, StoredModel | undefined>();
      if (ids.length === 0) return out;
      const stamps = await s.models.stamps(ids);
      for (const id of ids) {
        const stamp = stamps.get(id);
        if (stamp === undefined) {
          out.set(id, undefined);
          continue;
        }
        const hit = cache.get(id);
        if (hit && hit.stamp === stamp) {
          out.set(id, hit.model);
          continue;
        }
        const model = await s.models.get(id);
        if (model) cache.set(id, { stamp, model });
        out.set(id, model);
      }
      return out;
    },
    /** One live model by id, or undefined. */
    async get(s: Scope, modelId: string): Promise<StoredModel | undefined> {
      return (await this.getMany(s, [modelId])).get(modelId.toLowerCase());
    },
    /** Names of every field the model ever had (removed ones too), by fieldId. */
    fieldNames(s: Scope, modelId: string): Promise<Map<string, string>> {
      return s.models.fieldNames(modelId);
    },
  };
}

/** The model cache type. */
export type ModelCache = ReturnType<typeof createModelCache>;
