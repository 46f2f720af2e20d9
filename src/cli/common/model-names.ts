import type { DdsService } from "../../contract/service.js";
import type { ModelNames } from "../render/evidence.js";

/**
 * Model names by modelId, so tables show `Loan` rather than a UUID. One page of up to 500
 * models; beyond that the remaining models are shown by id.
 */
export async function modelNames(service: DdsService): Promise<ModelNames> {
  const page = await service.listModels({ limit: 500 });
  return new Map(page.models.map((m) => [m.modelId, m.name]));
}
