import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import type { StoredField, StoredModel } from "../models/model-types.js";
import { listRows, type RowPage } from "./list-sql.js";
import { decodeRow, insertRow, setClause } from "./row-codec.js";
import { fields, models } from "./schema.js";
import type { Sql } from "./sql.js";

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

const inList = (n: number) => Array(n).fill("?").join(", ");

async function modelRows(db: Sql, where: string, params: unknown[], lock = false): Promise<ModelRow[]> {
  const rows = await db.all(`SELECT * FROM models WHERE ${where}${lock ? ` ${db.dialect.forUpdate}` : ""}`, params);
  return rows.map((r) => decodeRow<ModelRow>(models, r));
}

async function liveFields(db: Sql, modelIds: string[]): Promise<FieldRow[]> {
  if (modelIds.length === 0) return [];
  const rows = await db.all(`SELECT * FROM fields WHERE model_id IN (${inList(modelIds.length)}) AND deleted_at IS NULL ORDER BY position`, modelIds);
  return rows.map((r) => decodeRow<FieldRow>(fields, r));
}

async function withFields(db: Sql, rows: ModelRow[]): Promise<StoredModel[]> {
  const fr = await liveFields(db, rows.map((r) => r.id));
  return rows.map((r) => toStoredModel(r, fr));
}

/** Options of a read that precedes a change: `lock` holds the row (PostgreSQL) until the transaction ends. */
export interface LockOption {
  lock?: boolean;
}

/** Model persistence, scoped to one workspace. */
export function createModelRepo(db: Sql, workspace: string) {
  const one = async (where: string, params: unknown[], lock?: boolean): Promise<StoredModel | undefined> => {
    const rows = await modelRows(db, `workspace = ? AND ${where} AND deleted_at IS NULL`, [workspace, ...params], lock);
    return rows.length === 0 ? undefined : (await withFields(db, rows))[0];
  };
  return {
    async insert(model: StoredModel): Promise<void> {
      const { sql, params } = insertRow(models, {
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
      });
      await db.run(sql, params);
      for (const f of model.fields) await this.insertField(f);
    },
    async insertField(f: StoredField): Promise<void> {
      const { sql, params } = insertRow(fields, { ...f, workspace, deletedAt: null });
      await db.run(sql, params);
    },
    /** A live model; `lock` holds its row until the transaction ends (before a change). */
    get(id: string, options: LockOption = {}): Promise<StoredModel | undefined> {
      return one("id = ?", [id.toLowerCase()], options.lock);
    },
    getByName(name: string): Promise<StoredModel | undefined> {
      return one("name = ?", [name]);
    },
    /** Every non-deleted model of the workspace, fields included. */
    async all(): Promise<StoredModel[]> {
      return withFields(db, await modelRows(db, "workspace = ? AND deleted_at IS NULL", [workspace]));
    },
    async list(query: ListQuery): Promise<RowPage<StoredModel>> {
      const page = await listRows<{ id: string }>(
        db,
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
      const ids = page.rows.map((r) => r.id);
      const found = ids.length === 0 ? [] : await withFields(db, await modelRows(db, `id IN (${inList(ids.length)})`, ids));
      const byId = new Map(found.map((m) => [m.id, m]));
      return { ...page, rows: ids.map((id) => byId.get(id)!) };
    },
    async update(id: string, set: Partial<Pick<ModelRow, "name" | "description" | "status" | "version" | "identity" | "relationships" | "compiled" | "updatedAt" | "deletedAt">>): Promise<void> {
      const clause = setClause(models, set);
      await db.run(`UPDATE models SET ${clause.sql} WHERE id = ?`, [...clause.params, id]);
    },
    async updateField(id: string, set: Partial<Omit<FieldRow, "id" | "workspace" | "modelId" | "createdAt">>): Promise<void> {
      const clause = setClause(fields, set);
      await db.run(`UPDATE fields SET ${clause.sql} WHERE id = ?`, [...clause.params, id]);
    },
    /** A live field of a live model of this workspace, by fieldId. */
    async getField(fieldId: string): Promise<StoredField | undefined> {
      const row = await db.get(
        `SELECT f.* FROM fields f JOIN models m ON m.id = f.model_id
         WHERE f.id = ? AND f.workspace = ? AND f.deleted_at IS NULL AND m.deleted_at IS NULL`,
        [fieldId.toLowerCase(), workspace],
      );
      return row ? toStoredField(decodeRow<FieldRow>(fields, row)) : undefined;
    },
    async listFields(query: ListQuery): Promise<RowPage<StoredField>> {
      const page = await listRows<Record<string, unknown>>(
        db,
        {
          select: "f.*",
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
      return { ...page, rows: page.rows.map((r) => toStoredField(decodeRow<FieldRow>(fields, r))) };
    },
    /** Number of live records of a model (delete precondition). */
    async countLiveRecords(modelId: string): Promise<number> {
      const row = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM records WHERE model_id = ? AND deleted_at IS NULL", [modelId]);
      return Number(row?.n ?? 0);
    },
    async nextPosition(modelId: string): Promise<number> {
      const row = await db.get<{ n: number }>("SELECT COALESCE(MAX(position), -1) + 1 AS n FROM fields WHERE model_id = ?", [modelId]);
      return Number(row?.n ?? 0);
    },
  };
}

/** The model repository type. */
export type ModelRepo = ReturnType<typeof createModelRepo>;
