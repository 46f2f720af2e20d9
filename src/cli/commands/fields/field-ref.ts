import { errors } from "../../../contract/errors.js";
import type { DdsService } from "../../../contract/service.js";
import { isUuid } from "../../../util/uuid-shape.js";
import { resolveModelId } from "../../resolve.js";

/** A field addressed by fieldId (global path) or by model and name (scoped path). */
export type FieldRef = { fieldId: string } | { modelId: string; name: string };

/** Reads `<fieldId>` or `<model> <field>` from the positional arguments. */
export async function fieldRef(service: DdsService, args: string[]): Promise<FieldRef> {
  const [a, b] = args;
  if (b === undefined) {
    if (!isUuid(a)) throw errors.usage(`give a fieldId, or a model and a field name (got "${a}")`);
    return { fieldId: a };
  }
  return { modelId: await resolveModelId(service, a), name: b };
}
