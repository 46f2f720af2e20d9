import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import { parseBody } from "../../contract/parse.js";
import type { Field, Page } from "../../contract/schemas/index.js";
import { requestSchemas } from "../request-schemas.js";
import { newId } from "../../util/ids.js";
import { nowIso } from "../../util/time.js";
import type { EngineContext, Scope } from "../engine-context.js";
import { checkModelDefinition } from "./model-definition.js";
import { recompile, requireModel } from "./model-service.js";
import type { StoredField, StoredModel } from "./model-types.js";
import { toApiField } from "./model-view.js";
import { renameCascade } from "./field-rename.js";

function assertMutable(model: StoredModel): void {
  if (model.status === "archived") {
    throw errors.conflict("model_archived", `model ${model.name} is archived; its field schema cannot be modified`);
  }
}

function fieldByName(model: StoredModel, name: string): StoredField {
  const f = model.fields.find((x) => x.name === name);
  if (!f) throw errors.notFound("field", `${model.name}.${name}`);
  return f;
}

/** Checks the model as it would be with `fields`, and throws 422 listing every problem. */
function checkWith(model: StoredModel, fields: StoredField[]): void {
  const problems = checkModelDefinition({
    fields: fields.map((f) => ({ ...f, description: f.description, resolution: f.resolution ?? undefined })),
    identity: model.identity.map((id) => fields.find((f) => f.id === id)?.name ?? id),
    relationships: model.relationships,
  });
  if (problems.length > 0) throw errors.validation(`field definition is invalid: ${problems[0].message}`, problems);
}

/** Persists a model-level change after a field change: version, compile, staleness. */
async function afterChange(s: Scope, modelId: string): Promise<void> {
  const model = await requireModel(s, modelId);
  const version = model.version + 1;
  await s.models.update(model.id, { version, updatedAt: nowIso() });
  if (model.status === "active") await recompile(s, { ...model, version });
  await s.hooks.onDefinitionChange(s, [model.id]);
}

/** Field operations, by model and name (scoped) and by fieldId (global). */
export function createFieldService(ctx: EngineContext) {
  const replace = async (s: Scope, model: StoredModel, current: StoredField, body: unknown): Promise<Field> => {
    const input = parseBody((await requestSchemas()).FieldInput, body);
    assertMutable(model);
    if (input.type !== current.type && model.status === "active") {
      throw errors.validation(`cannot change the type of field ${current.name} of an active model`, [
        { path: "type", message: `is ${current.type}; an active model's field types are fixed` },
      ]);
    }
    if (input.name !== current.name && model.fields.some((f) => f.name === input.name)) {
      throw errors.nameTaken("field", input.name);
    }
    const next: StoredField = {
      ...current,
      name: input.name,
      type: input.type,
      description: input.description ?? "",
      required: input.required ?? false,
      validation: input.validation ?? null,
      resolution: input.resolution ?? null,
      computed: input.computed ?? null,
      updatedAt: nowIso(),
    };
    checkWith(model, model.fields.map((f) => (f.id === current.id ? next : f)));
    if (next.computed && model.identity.includes(current.id)) {
      throw errors.validation("an identity field cannot be computed", [{ path: "computed", message: `${current.name} is part of the identity` }]);
    }
    const { id: _id, key: _k, modelId: _m, position: _p, createdAt: _c, ...set } = next;
    await s.models.updateField(current.id, set);
    if (next.name !== current.name) await renameCascade(s, model, current.name, next.name);
    await afterChange(s, model.id);
    return toApiField(next);
  };

  const remove = async (s: Scope, model: StoredModel, field: StoredField): Promise<void> => {
    assertMutable(model);
    if (model.identity.includes(field.id)) {
      throw errors.validation(`field ${field.name} is part of the identity of ${model.name} and cannot be removed`, [
        { path: "identity", message: `remove ${field.name} from the identity first (drafts only)` },
      ]);
    }
    await s.models.updateField(field.id, { deletedAt: nowIso() });
    await afterChange(s, model.id);
  };

  const fieldOwner = async (s: Scope, fieldId: string, lock = false): Promise<[StoredModel, StoredField]> => {
    const field = await s.models.getField(String(fieldId));
    if (!field) throw errors.notFound("field", fieldId);
    const model = await requireModel(s, field.modelId, lock);
    return [model, fieldByName(model, field.name)];
  };

  return {
    async createField(modelId: string, body: unknown): Promise<Field> {
      const input = parseBody((await requestSchemas()).FieldInput, body);
      return ctx.tx(async (s) => {
        const model = await requireModel(s, modelId, true);
        assertMutable(model);
        if (model.fields.some((f) => f.name === input.name)) throw errors.nameTaken("field", input.name);
        const now = nowIso();
        const field: StoredField = {
          key: 0, // given by the store on insert
          id: newId(),
          modelId: model.id,
          name: input.name,
          type: input.type,
          description: input.description ?? "",
          required: input.required ?? false,
          validation: input.validation ?? null,
          resolution: input.resolution ?? null,
          computed: input.computed ?? null,
          position: await s.models.nextPosition(model.id),
          createdAt: now,
          updatedAt: now,
        };
        checkWith(model, [...model.fields, field]);
        field.key = await s.models.insertField(field);
        await afterChange(s, model.id);
        return toApiField(field);
      });
    },
    async listModelFields(modelId: string): Promise<Page<Field>> {
      const model = await requireModel(ctx, modelId);
      return { data: model.fields.map(toApiField), nextCursor: null, hasNextPage: false };
    },
    async getModelField(modelId: string, fieldName: string): Promise<Field> {
      return toApiField(fieldByName(await requireModel(ctx, modelId), fieldName));
    },
    async replaceModelField(modelId: string, fieldName: string, body: unknown): Promise<Field> {
      return ctx.tx(async (s) => {
        const model = await requireModel(s, modelId, true);
        return replace(s, model, fieldByName(model, fieldName), body);
      });
    },
    async deleteModelField(modelId: string, fieldName: string): Promise<void> {
      await ctx.tx(async (s) => {
        const model = await requireModel(s, modelId, true);
        await remove(s, model, fieldByName(model, fieldName));
      });
    },
    async listFields(query?: ListQuery): Promise<Page<Field>> {
      const page = await ctx.models.listFields(query ?? {});
      return { data: page.rows.map(toApiField), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },
    async getField(fieldId: string): Promise<Field> {
      return toApiField((await fieldOwner(ctx, fieldId))[1]);
    },
    async replaceField(fieldId: string, body: unknown): Promise<Field> {
      return ctx.tx(async (s) => {
        const [model, field] = await fieldOwner(s, fieldId, true);
        return replace(s, model, field, body);
      });
    },
    async deleteField(fieldId: string): Promise<void> {
      await ctx.tx(async (s) => {
        const [model, field] = await fieldOwner(s, fieldId, true);
        await remove(s, model, field);
      });
    },
  };
}
