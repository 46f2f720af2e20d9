import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import type { StoredField, StoredModel } from "../models/model-types.js";
import type { Store } from "./db.js";
import { listRows, type RowPage } from "./list-sql.js";
import { fields, models } from "./schema.js";

type ModelRow = typeof models.$inferSelect;
type FieldRow = typeof fields.$inferSelect;

/** Parses a field row into the engine's shape. */
export function toStoredField(r: FieldRow): StoredField {
  return {
    id: r.id,
    modelId: r.modelId,
    name: r.name,
    type: r.type as StoredField["type"],
    description: r.description,
    required: r.required,
    validation: (r.validation ?? null) as StoredField["validation"],
    resolution: (r.resolution ?? null) as StoredField["resolution"],
    computed: r.computed ?? null,
    position: r.position,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function toStoredModel(r: ModelRow, fieldRows: FieldRow[]): StoredModel {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    status: r.status,
    version: r.version,
    identity: r.identity,
    relationships: r.relationships as StoredModel["relationships"],
    fields: fieldRows.filter((f) => f.modelId === r.id).map(toStoredField),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function liveFields(store: Store, modelIds: string[]): FieldRow[] {
  if (modelIds.length === 0) return [];
  return store.db
    .select()
    .from(fields)
    .where(and(inArray(fields.modelId, modelIds), isNull(fields.deletedAt)))
    .orderBy(asc(fields.position))
    .all();
}

/** Model persistence, scoped to one workspace. */
export function createModelRepo(store: Store, workspace: string) {
  const { db } = store;
  const live = (id: string) => and(eq(models.workspace, workspace), eq(models.id, id), isNull(models.deletedAt));
  return {
    insert(model: StoredModel): void {
      db.insert(models)
        .values({
          id: model.id,
          workspace,
          name: model.name,
          description: model.description,
          status: model.status,
          version: model.version,
          identity: model.identity,
          relationships: model.relationships,
          compiled: null,
          createdAt: model.createdAt,
          updatedAt: model.updatedAt,
        })
        .run();
      for (const f of model.fields) this.insertField(f);
    },
    insertField(f: StoredField): void {
      db.insert(fields)
        .values({ ...f, workspace, validation: f.validation, resolution: f.resolution, computed: f.computed })
        .run();
    },
    get(id: string): StoredModel | undefined {
      const row = db.select().from(models).where(live(id.toLowerCase())).get();
      return row ? toStoredModel(row, liveFields(store, [row.id])) : undefined;
    },
    getByName(name: string): StoredModel | undefined {
      const row = db
        .select()
        .from(models)
        .where(and(eq(models.workspace, workspace), eq(models.name, name), isNull(models.deletedAt)))
        .get();
      return row ? toStoredModel(row, liveFields(store, [row.id])) : undefined;
    },
    /** Every non-deleted model of the workspace, fields included. */
    all(): StoredModel[] {
      const rows = db.select().from(models).where(and(eq(models.workspace, workspace), isNull(models.deletedAt))).all();
      const fr = liveFields(store, rows.map((r) => r.id));
      return rows.map((r) => toStoredModel(r, fr));
    },
    list(query: ListQuery): RowPage<StoredModel> {
      const page = listRows<ModelRow & Record<string, unknown>>(
        store.raw,
        {
          select: "m.id",
          from: "models m",
          where: "m.workspace = ? AND m.deleted_at IS NULL",
          params: [workspace],
          id: "m.id",
          columns: {
            name: { sql: "m.name", kind: "text" },
            status: { sql: "m.status", kind: "text" },
            version: { sql: "m.version", kind: "number" },
            createdAt: { sql: "m.created_at", kind: "text" },
            updatedAt: { sql: "m.updated_at", kind: "text" },
          },
        },
        LIST_SPECS.models,
        query,
      );
      // Two queries for the whole page (models, then all their fields), not two per model.
      const ids = page.rows.map((r) => r.id as string);
      const found = ids.length === 0 ? [] : db.select().from(models).where(inArray(models.id, ids)).all();
      const fr = liveFields(store, ids);
      const byId = new Map(found.map((r) => [r.id, toStoredModel(r, fr)]));
      return { ...page, rows: ids.map((id) => byId.get(id)!) };
    },
    update(id: string, set: Partial<Pick<ModelRow, "name" | "description" | "status" | "version" | "identity" | "relationships" | "compiled" | "updatedAt" | "deletedAt">>): void {
      db.update(models).set(set).where(eq(models.id, id)).run();
    },
    updateField(id: string, set: Partial<Omit<FieldRow, "id" | "workspace" | "modelId" | "createdAt">>): void {
      db.update(fields).set(set).where(eq(fields.id, id)).run();
    },
    /** A live field of a live model of this workspace, by fieldId. */
    getField(fieldId: string): StoredField | undefined {
      const row = db
        .select({ f: fields })
        .from(fields)
        .innerJoin(models, eq(models.id, fields.modelId))
        .where(and(eq(fields.id, fieldId.toLowerCase()), eq(fields.workspace, workspace), isNull(fields.deletedAt), isNull(models.deletedAt)))
        .get();
      return row ? toStoredField(row.f) : undefined;
    },
    listFields(query: ListQuery): RowPage<StoredField> {
      const page = listRows<FieldRow & Record<string, unknown>>(
        store.raw,
        {
          select: "f.id, f.workspace, f.model_id AS modelId, f.name, f.type, f.description, f.required, f.validation, f.resolution, f.computed, f.position, f.created_at AS createdAt, f.updated_at AS updatedAt",
          from: "fields f JOIN models m ON m.id = f.model_id",
          where: "f.workspace = ? AND f.deleted_at IS NULL AND m.deleted_at IS NULL",
          params: [workspace],
          id: "f.id",
          columns: {
            modelId: { sql: "f.model_id", kind: "text" },
            name: { sql: "f.name", kind: "text" },
            type: { sql: "f.type", kind: "text" },
            required: { sql: "f.required", kind: "bool" },
            createdAt: { sql: "f.created_at", kind: "text" },
            updatedAt: { sql: "f.updated_at", kind: "text" },
          },
        },
        LIST_SPECS.fields,
        query,
      );
      const rows = page.rows.map((r) =>
        toStoredField({
          ...r,
          required: Boolean(r.required),
          validation: r.validation ? JSON.parse(r.validation as unknown as string) : null,
          resolution: r.resolution ? JSON.parse(r.resolution as unknown as string) : null,
          computed: r.computed ? JSON.parse(r.computed as unknown as string) : null,
        } as FieldRow),
      );
      return { ...page, rows };
    },
    /** Number of live records of a model (delete precondition). */
    countLiveRecords(modelId: string): number {
      return store.raw
        .prepare("SELECT COUNT(*) AS n FROM records WHERE model_id = ? AND deleted_at IS NULL")
        .pluck()
        .get(modelId) as number;
    },
    nextPosition(modelId: string): number {
      const n = store.raw.prepare("SELECT COALESCE(MAX(position), -1) + 1 FROM fields WHERE model_id = ?").pluck().get(modelId);
      return n as number;
    },
  };
}

/** The model repository type. */
export type ModelRepo = ReturnType<typeof createModelRepo>;
