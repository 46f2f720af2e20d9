import { errors } from "../../../contract/errors.js";
import type { DdsService } from "../../../contract/service.js";
import { isUuid } from "../../../portable/names/uuid-shape.js";
import type { StringArg } from "../../core/args.js";
import { idRef, resolveRef } from "../../../portable/names/resolve-ref.js";

/** A field addressed by fieldId (global path) or by model and name (scoped path). */
export type FieldRef = { fieldId: string } | { modelId: string; name: string };

/** `<model|fieldId> [field]`: the positional arguments of the field commands. */
export const fieldRefArgs = {
  model: { type: "string", positional: true, required: true, placeholder: "model|fieldId", complete: "model", description: "model name or modelId, or a fieldId alone" } satisfies StringArg,
  field: { type: "string", positional: true, placeholder: "field", description: "field name" } satisfies StringArg,
};

/** Reads `<fieldId>` or `<model> <field>`. */
export async function fieldRef(service: DdsService, model: string, field: string | undefined): Promise<FieldRef> {
  if (field === undefined) {
    const fieldId = idRef("field", model);
    if (!isUuid(fieldId)) throw errors.usage(`give a fieldId, or a model and a field name (got "${model}")`);
    return { fieldId };
  }
  return { modelId: await resolveRef(service, "model", model), name: field };
}
