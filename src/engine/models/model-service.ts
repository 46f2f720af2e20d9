import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import { parseBody } from "../../contract/parse.js";
import { ModelCreate, ModelPatch, type Model, type ModelList } from "../../contract/schemas/index.js";
import { newId } from "../../util/ids.js";
import { nowIso } from "../../util/time.js";
import type { EngineContext } from "../engine-context.js";
import { assertTransition, parseTargetStatus } from "../transitions.js";
import { compileModel } from "./model-compile.js";
import { checkModelDefinition } from "./model-definition.js";
import type { StoredField, StoredModel } from "./model-types.js";
import { toApiModel } from "./model-view.js";

/** Loads a live model of the workspace or throws 404. */
export function requireModel(ctx: EngineContext, modelId: string): StoredModel {
  const model = ctx.models.get(String(modelId));
  if (!model) throw errors.notFound("model", modelId);
  return model;
}

/** Compiles an active model after a change, throwing 422 compile_failed if it no longer compiles. */
export function recompile(ctx: EngineContext, model: StoredModel): void {
  const { compiled, problems } = compileModel(model, ctx.models.all());
  if (!compiled) throw errors.compile(`model ${model.name} does not compile: ${problems[0].message}`, problems);
  ctx.models.update(model.id, { compiled });
}

/** Rewrites relationship targets that name model `from` to `to`; returns `rels` itself when none does. */
function retarget(rels: StoredModel["relationships"], from: string, to: string): StoredModel["relationships"] {
  if (!rels.some((r) => r.target === from)) return rels;
  return rels.map((r) => (r.target === from ? { ...r, target: to } : r));
}

/** Model operations of the service. */
export function createModelService(ctx: EngineContext) {
  return {
    async createModel(body: unknown): Promise<Model> {
      const input = parseBody(ModelCreate, body);
      const problems = checkModelDefinition({
        fields: input.fields,
        identity: input.identity ?? [],
        relationships: input.relationships ?? [],
      });
      if (problems.length > 0) throw errors.validation(`model definition is invalid: ${problems[0].path}: ${problems[0].message}`, problems);
      return ctx.store.tx(() => {
        if (ctx.models.getByName(input.name)) throw errors.nameTaken("model", input.name);
        const id = newId();
        const now = nowIso();
        const fields: StoredField[] = input.fields.map((f, position) => ({
          id: newId(),
          modelId: id,
          name: f.name,
          type: f.type,
          description: f.description ?? "",
          required: f.required ?? false,
          validation: f.validation ?? null,
          resolution: f.resolution ?? null,
          computed: f.computed ?? null,
          position,
          createdAt: now,
          updatedAt: now,
        }));
        const model: StoredModel = {
          id,
          name: input.name,
          description: input.description ?? "",
          status: "draft",
          version: 1,
          identity: (input.identity ?? []).map((n) => fields.find((f) => f.name === n)!.id),
          relationships: input.relationships ?? [],
          fields,
          createdAt: now,
          updatedAt: now,
        };
        ctx.models.insert(model);
        return toApiModel(model);
      });
    },

    async listModels(query?: ListQuery): Promise<ModelList> {
      const page = ctx.models.list(query ?? {});
      return { models: page.rows.map(toApiModel), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },

    async getModel(modelId: string): Promise<Model> {
      return toApiModel(requireModel(ctx, modelId));
    },

    async updateModel(modelId: string, body: unknown): Promise<Model> {
      if (body && typeof body === "object" && "status" in body) {
        throw errors.invalid("status is not changed by PATCH; use PUT /models/{modelId}/status/{targetStatus}");
      }
      const patch = parseBody(ModelPatch, body);
      return ctx.store.tx(() => {
        const model = requireModel(ctx, modelId);
        const definitionChange = patch.identity !== undefined || patch.relationships !== undefined;
        if (definitionChange && model.status === "archived") {
          throw errors.conflict("model_archived", `model ${model.name} is archived; its schema cannot be modified`);
        }
        if (patch.identity !== undefined && model.status !== "draft") {
          throw errors.validation("identity can only change while the model is a draft", [
            { path: "identity", message: `model is ${model.status}; identity is fixed once records may exist` },
          ]);
        }
        if (patch.name !== undefined && patch.name !== model.name) {
          const other = ctx.models.getByName(patch.name);
          if (other && other.id !== model.id) throw errors.nameTaken("model", patch.name);
        }
        const identityNames = patch.identity ?? model.identity.map((id) => model.fields.find((f) => f.id === id)?.name ?? id);
        const problems = checkModelDefinition({
          fields: model.fields.map((f) => ({ ...f, resolution: f.resolution ?? undefined })),
          identity: identityNames,
          relationships: patch.relationships ?? model.relationships,
        });
        if (problems.length > 0) throw errors.validation(`model definition is invalid: ${problems[0].path}: ${problems[0].message}`, problems);
        const next: StoredModel = {
          ...model,
          name: patch.name ?? model.name,
          description: patch.description === undefined ? model.description : (patch.description ?? ""),
          identity: identityNames.map((n) => model.fields.find((f) => f.name === n)!.id),
          relationships: patch.relationships ?? model.relationships,
          updatedAt: nowIso(),
        };
        const renamed = next.name !== model.name;
        // Relationship targets may name a model; follow the rename so they keep resolving.
        if (renamed) next.relationships = retarget(next.relationships, model.name, next.name);
        const changed = renamed || definitionChange;
        next.version = changed ? model.version + 1 : model.version;
        ctx.models.update(model.id, {
          name: next.name,
          description: next.description,
          identity: next.identity,
          relationships: next.relationships,
          version: next.version,
          updatedAt: next.updatedAt,
        });
        if (next.name !== model.name) {
          // Relationships that name this model as their target follow the rename.
          for (const other of ctx.models.all()) {
            if (!other.relationships.some((r) => r.target === model.name)) continue;
            const relationships = other.relationships.map((r) => (r.target === model.name ? { ...r, target: next.name } : r));
            ctx.models.update(other.id, { relationships });
          }
          ctx.onModelRename(model.name, next.name);
        }
        if (next.status === "active" && changed) recompile(ctx, next);
        if (changed) ctx.onDefinitionChange([model.id]);
        return toApiModel(next);
      });
    },

    async setModelStatus(modelId: string, target: string): Promise<Model> {
      const to = parseTargetStatus("model", target);
      return ctx.store.tx(() => {
        const model = requireModel(ctx, modelId);
        assertTransition("model", model.status, to);
        const next = { ...model, status: to as StoredModel["status"], updatedAt: nowIso() };
        if (to === "active") {
          const { compiled, problems } = compileModel(next, ctx.models.all());
          if (!compiled) throw errors.compile(`model ${model.name} cannot be activated: ${problems[0].message}`, problems);
          ctx.models.update(model.id, { status: "active", compiled, updatedAt: next.updatedAt });
        } else {
          ctx.models.update(model.id, { status: next.status, updatedAt: next.updatedAt });
        }
        ctx.onDefinitionChange([model.id]);
        return toApiModel(next);
      });
    },

    async deleteModel(modelId: string): Promise<void> {
      ctx.store.tx(() => {
        const model = requireModel(ctx, modelId);
        if (model.status !== "archived") {
          throw errors.conflict("model_not_archived", `model ${model.name} is ${model.status}; archive it before deleting`);
        }
        const n = ctx.models.countLiveRecords(model.id);
        if (n > 0) {
          throw errors.conflict("model_has_records", `model ${model.name} still has ${n} active record(s); delete them first`);
        }
        ctx.models.update(model.id, { deletedAt: nowIso() });
      });
    },
  };
}
