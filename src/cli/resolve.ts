import { errors } from "../contract/errors.js";
import type { DdsService } from "../contract/service.js";
import { isUuid } from "../util/uuid-shape.js";

/** Resolves a model named by id or by name to its modelId (404 when neither matches). */
export async function resolveModelId(service: DdsService, ref: string): Promise<string> {
  if (isUuid(ref)) return ref.toLowerCase();
  const page = await service.listModels({ filters: [{ field: "name", op: "eq", value: ref }], limit: 1 });
  const model = page.models[0];
  if (!model) throw errors.notFound("model", ref);
  return model.modelId;
}
