import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import { parseBody } from "../../contract/parse.js";
import type { Model, ModelList } from "../../contract/schemas/index.js";
import { requestSchemas } from "../request-schemas.js";
import { newId } from "../../util/ids.js";
import { nowIso } from "../../util/time.js";
import type { EngineContext, Scope } from "../engine-context.js";
import { firstMoves } from "../../contract/lifecycle.js";
import { assertTransition, parseTargetStatus } from "../transitions.js";
import { compileModel } from "./model-compile.js";
import { checkModelDefinition } from "./model-definition.js";
import type { StoredField, StoredModel } from "./model-types.js";
import { toApiModel } from "./model-view.js";

/** Loads a live model of the workspace or throws 404; `lock` holds its row for a change. */
export async function requireModel(s: Scope, modelId: string, lock = false): Promise<StoredModel> {
  const model = await s.models.get(String(modelId), { lock });
  if (!model) throw errors.notFound("model", modelId);
  return model;
}

/** Compiles an active model after a change, throwing 422 compile_failed if it no longer compiles. */
export async function recompile(s: Scope, model: StoredModel): Promise<void> {
  const { compiled, problems } = compileModel(model, await s.models.all());
  if (!compiled) throw errors.compile(`model ${model.name} does not compile: ${problems[0].message}`, problems);
  await s.models.update(model.id, { compiled });
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
      const input = parseBody((await requestSchemas()).ModelCreate, body);
      const problems = checkModelDefinition({
        fields: input.fields,
        identity: input.identity ?? [],
        relationships: input.relationships ?? [],
      });
      if (problems.length > 0) throw errors.validation(`model definition is invalid: ${problems[0].path}: ${problems[0].message}`, problems);
      return ctx.tx(async (s) => {
        if (await s.models.getByName(input.name)) throw errors.nameTaken("model", input.name);
        const id = newId();
        const now = nowIso();
        const fields: StoredField[] = input.fields.map((f, position) => ({
          key: 0, // given by the store on insert
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
          key: 0, // given by the store on insert
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
        await s.models.insert(model);
        return toApiModel(model);
      });
    },

    async listModels(query?: ListQuery): Promise<ModelList> {
      const page = await ctx.models.list(query ?? {});
      return { models: page.rows.map(toApiModel), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },

    async getModel(modelId: string): Promise<Model> {
      return toApiModel(await requireModel(ctx, modelId));
    },

    async updateModel(modelId: string, body: unknown): Promise<Model> {
      if (body && typeof body === "object" && "status" in body) {
        throw errors.invalid("status is not changed by PATCH; use PUT /models/{modelId}/status/{targetStatus}");
      }
      const patch = parseBody((await requestSchemas()).ModelPatch, body);
      return ctx.tx(async (s) => {
        const model = await requireModel(s, modelId, true);
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
          const other = await s.models.getByName(patch.name);
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
        await s.models.update(model.id, {
          name: next.name,
          description: next.description,
          identity: next.identity,
          relationships: next.relationships,
          version: next.version,
          updatedAt: next.updatedAt,
        });
        if (next.name !== model.name) {
          // Relationships that name this model as their target follow the rename.
          for (const other of await s.models.all()) {
            if (!other.relationships.some((r) => r.target === model.name)) continue;
            const relationships = other.relationships.map((r) => (r.target === model.name ? { ...r, target: next.name } : r));
            await s.models.update(other.id, { relationships });
          }
          await s.hooks.onModelRename(s, model.name, next.name);
        }
        if (next.status === "active" && changed) await recompile(s, next);
        if (changed) await s.hooks.onDefinitionChange(s, [model.id]);
        return toApiModel(next);
      });
    },

    async setModelStatus(modelId: string, target: string): Promise<Model> {
      const to = parseTargetStatus("model", target);
      return ctx.tx(async (s) => {
        const model = await requireModel(s, modelId, true);
        assertTransition("model", model.status, to);
        const next = { ...model, status: to as StoredModel["status"], updatedAt: nowIso() };
        if (to === "active") {
          const { compiled, problems } = compileModel(next, await s.models.all());
          if (!compiled) throw errors.compile(`model ${model.name} cannot be activated: ${problems[0].message}`, problems);
          await s.models.update(model.id, { status: "active", compiled, updatedAt: next.updatedAt });
        } else {
          await s.models.update(model.id, { status: next.status, updatedAt: next.updatedAt });
        }
        await s.hooks.onDefinitionChange(s, [model.id]);
        return toApiModel(next);
      });
    },

    async deleteModel(modelId: string): Promise<void> {
      await ctx.tx(async (s) => {
        const model = await requireModel(s, modelId, true);
        if (model.status !== "archived") {
          throw errors.conflict("model_not_archived", `model ${model.name} is ${model.status}: ${firstMoves("model", model.status, "archived", "deleting it")}`);
        }
        const n = await s.models.countLiveRecords(model.id);
        if (n > 0) {
          throw errors.conflict("model_has_records", `model ${model.name} still has ${n} active record(s); delete them first`);
        }
        await s.models.update(model.id, { deletedAt: nowIso() });
      });
    },
  };
}
