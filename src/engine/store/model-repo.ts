import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import type { StoredField, StoredModel } from "../models/model-types.js";
import { listRows, type RowPage } from "./list-sql.js";
import { forgetGroupState, readThroughGroup, type Sql } from "./sql.js";
import { WORKSPACE } from "./workspace-sql.js";

/** A model row as stored: JSON columns still as text. */
interface ModelRow {
  key: number;
  id: string;
  name: string;
  description: string;
  status: StoredModel["status"];
  version: number;
  identity: string;
  relationships: string;
  createdAt: string;
  updatedAt: string;
}

/** A field row as stored: JSON columns still as text. */
interface FieldRow {
  key: number;
  id: string;
  modelId: string;
  name: string;
  type: StoredField["type"];
  description: string;
  required: boolean;
  validation: string | null;
  resolution: string | null;
  computed: string | null;
  position: number;
  createdAt: string;
  updatedAt: string;
}

const MODEL_COLUMNS = `m.id AS key, m.uuid AS id, m.name, m.description, m.status, m.version, m.identity, m.relationships,
  m.created_at AS "createdAt", m.updated_at AS "updatedAt"`;
const FIELD_COLUMNS = `f.id AS key, f.uuid AS id, m.uuid AS "modelId", f.name, f.type, f.description, f.required, f.validation, f.resolution,
  f.computed, f.position, f.created_at AS "createdAt", f.updated_at AS "updatedAt"`;

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/** Parses a field row into the engine's shape. */
function toStoredField(r: FieldRow): StoredField {
  return {
    key: Number(r.key),
    id: r.id,
    modelId: r.modelId,
    name: r.name,
    type: r.type,
    description: r.description,
    required: r.required,
    validation: json(r.validation),
    resolution: json(r.resolution),
    computed: json(r.computed),
    position: Number(r.position),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function toStoredModel(r: ModelRow, fieldRows: FieldRow[]): StoredModel {
  return {
    key: Number(r.key),
    id: r.id,
    name: r.name,
    description: r.description,
    status: r.status,
    version: Number(r.version),
    identity: JSON.parse(r.identity) as string[],
    relationships: JSON.parse(r.relationships) as StoredModel["relationships"],
    fields: fieldRows.filter((f) => f.modelId === r.id).map(toStoredField),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

const inList = (n: number) => Array(n).fill("?").join(", ");

/** Options of a read that precedes a change: `lock` holds the row (PostgreSQL) until the transaction ends. */
export interface LockOption {
  lock?: boolean;
}

/** What an update of a model may set (JSON values as the engine holds them). */
export type ModelSet = Partial<Pick<StoredModel, "name" | "description" | "status" | "version" | "identity" | "relationships" | "updatedAt">> & {
  compiled?: unknown;
  deletedAt?: string;
};

/** What an update of a field may set. */
export type FieldSet = Partial<Pick<StoredField, "name" | "type" | "description" | "required" | "validation" | "resolution" | "computed" | "updatedAt">> & {
  deletedAt?: string;
};

/** `SET a = ?, b = ?` of the given values, each encoded by `encode`; undefined values are left out. */
function setClause(set: Record<string, unknown>, columns: Record<string, (v: unknown) => unknown>): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const [key, value] of Object.entries(set)) {
    if (value === undefined) continue;
    const column = COLUMN_OF[key];
    if (!column || !columns[key]) throw new Error(`no column for ${key}`);
    parts.push(`${column} = ?`);
    params.push(value === null ? null : columns[key](value));
  }
  return { sql: parts.join(", "), params };
}

const COLUMN_OF: Record<string, string> = {
  name: "name",
  description: "description",
  status: "status",
  version: "version",
  identity: "identity",
  relationships: "relationships",
  compiled: "compiled",
  updatedAt: "updated_at",
  deletedAt: "deleted_at",
  type: "type",
  required: "required",
  validation: "validation",
  resolution: "resolution",
  computed: "computed",
};

/** Model persistence, scoped to one workspace. */
export function createModelRepo(db: Sql, workspace: string) {
  const d = db.dialect;
  const asIs = (v: unknown) => v;
  const asJson = (v: unknown) => JSON.stringify(v);
  const asTime = (v: unknown) => d.time(v as string);
  const modelColumns = { name: asIs, description: asIs, status: asIs, version: asIs, identity: asJson, relationships: asJson, compiled: asJson, updatedAt: asTime, deletedAt: asTime };
  const fieldColumns = {
    name: asIs,
    type: asIs,
    description: asIs,
    required: (v: unknown) => d.bool(v as boolean),
    validation: asJson,
    resolution: asJson,
    computed: asJson,
    updatedAt: asTime,
    deletedAt: asTime,
  };

  const modelRows = (where: string, params: unknown[], lock = false): Promise<ModelRow[]> =>
    db.all<ModelRow>(`SELECT ${MODEL_COLUMNS} FROM models m WHERE ${where}${lock ? ` ${d.forUpdate}` : ""}`, params);

  const liveFields = async (modelKeys: number[]): Promise<FieldRow[]> => {
    if (modelKeys.length === 0) return [];
    return db.all<FieldRow>(
      `SELECT ${FIELD_COLUMNS} FROM fields f JOIN models m ON m.id = f.model_id
       WHERE f.model_id IN (${inList(modelKeys.length)}) AND f.deleted_at IS NULL ORDER BY f.position`,
      modelKeys,
    );
  };

  const withFields = async (rows: ModelRow[]): Promise<StoredModel[]> => {
    const fr = await liveFields(rows.map((r) => Number(r.key)));
    return rows.map((r) => toStoredModel(r, fr));
  };

  const one = async (where: string, params: unknown[], lock?: boolean): Promise<StoredModel | undefined> => {
    const rows = await modelRows(`m.workspace_id = ${WORKSPACE} AND ${where} AND m.deleted_at IS NULL`, [workspace, ...params], lock);
    return rows.length === 0 ? undefined : (await withFields(rows))[0];
  };

  /** Inserts a field; resolves to its key. */
  const insertField = async (f: StoredField): Promise<number> => {
    const row = await db.get<{ id: number }>(
      `INSERT INTO fields (uuid, model_id, name, type, description, required, validation, resolution, computed, position, created_at, updated_at)
       VALUES (?, (SELECT id FROM models WHERE uuid = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      [
        d.uuid(f.id),
        d.uuid(f.modelId),
        f.name,
        f.type,
        f.description,
        d.bool(f.required),
        f.validation === null ? null : JSON.stringify(f.validation),
        f.resolution === null ? null : JSON.stringify(f.resolution),
        f.computed === null ? null : JSON.stringify(f.computed),
        f.position,
        d.time(f.createdAt),
        d.time(f.updatedAt),
      ],
    );
    forgetGroupState(db);
    return Number(row!.id);
  };

  return {
    /** Inserts a model and its fields, setting the keys the store gives them. */
    async insert(model: StoredModel): Promise<void> {
      const row = await db.get<{ id: number }>(
        `INSERT INTO models (uuid, workspace_id, name, description, status, version, identity, relationships, created_at, updated_at)
         VALUES (?, ${WORKSPACE}, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [
          d.uuid(model.id),
          workspace,
          model.name,
          model.description,
          model.status,
          model.version,
          JSON.stringify(model.identity),
          JSON.stringify(model.relationships),
          d.time(model.createdAt),
          d.time(model.updatedAt),
        ],
      );
      model.key = Number(row!.id);
      forgetGroupState(db);
      for (const f of model.fields) f.key = await insertField(f);
    },
    /** Inserts a field; resolves to the key the store gave it. */
    insertField,
    /** A live model; `lock` holds its row until the transaction ends (before a change). */
    get(id: string, options: LockOption = {}): Promise<StoredModel | undefined> {
      return one("m.uuid = ?", [d.uuid(id)], options.lock);
    },
    getByName(name: string): Promise<StoredModel | undefined> {
      return one("m.name = ?", [name]);
    },
    /** Every non-deleted model of the workspace, fields included. */
    async all(): Promise<StoredModel[]> {
      return withFields(await modelRows(`m.workspace_id = ${WORKSPACE} AND m.deleted_at IS NULL`, [workspace]));
    },
    /** Live models by id, fields included (unknown ids are left out). */
    async getMany(ids: readonly string[]): Promise<StoredModel[]> {
      if (ids.length === 0) return [];
      return withFields(await modelRows(`m.workspace_id = ${WORKSPACE} AND m.uuid IN (${inList(ids.length)}) AND m.deleted_at IS NULL`, [workspace, ...ids.map((id) => d.uuid(id))]));
    },
    async list(query: ListQuery): Promise<RowPage<StoredModel>> {
      const page = await listRows<ModelRow>(
        db,
        {
          select: MODEL_COLUMNS,
          from: "models m",
          where: `m.workspace_id = ${WORKSPACE} AND m.deleted_at IS NULL`,
          params: [workspace],
          id: "m.uuid",
          columns: {
            name: { sql: "m.name", kind: "text" },
            status: { sql: "m.status", kind: "text" },
            version: { sql: "m.version", kind: "number" },
            createdAt: { sql: "m.created_at", kind: "time" },
            updatedAt: { sql: "m.updated_at", kind: "time" },
          },
        },
        LIST_SPECS.models,
        query,
      );
      // Two queries for the whole page (models, then all their fields), not two per model.
      return { ...page, rows: await withFields(page.rows) };
    },
    async update(id: string, set: ModelSet): Promise<void> {
      const clause = setClause(set, modelColumns);
      await db.run(`UPDATE models SET ${clause.sql} WHERE uuid = ?`, [...clause.params, d.uuid(id)]);
      forgetGroupState(db);
    },
    async updateField(id: string, set: FieldSet): Promise<void> {
      const clause = setClause(set, fieldColumns);
      await db.run(`UPDATE fields SET ${clause.sql} WHERE uuid = ?`, [...clause.params, d.uuid(id)]);
      forgetGroupState(db);
    },
    /** A live field of a live model of this workspace, by fieldId. */
    async getField(fieldId: string): Promise<StoredField | undefined> {
      const row = await db.get<FieldRow>(
        `SELECT ${FIELD_COLUMNS} FROM fields f JOIN models m ON m.id = f.model_id
         WHERE f.uuid = ? AND m.workspace_id = ${WORKSPACE} AND f.deleted_at IS NULL AND m.deleted_at IS NULL`,
        [d.uuid(fieldId), workspace],
      );
      return row ? toStoredField(row) : undefined;
    },
    async listFields(query: ListQuery): Promise<RowPage<StoredField>> {
      const page = await listRows<FieldRow>(
        db,
        {
          select: FIELD_COLUMNS,
          from: "fields f JOIN models m ON m.id = f.model_id",
          where: `m.workspace_id = ${WORKSPACE} AND f.deleted_at IS NULL AND m.deleted_at IS NULL`,
          params: [workspace],
          id: "f.uuid",
          columns: {
            modelId: { sql: "m.uuid", kind: "uuid" },
            name: { sql: "f.name", kind: "text" },
            type: { sql: "f.type", kind: "text" },
            required: { sql: "f.required", kind: "bool" },
            createdAt: { sql: "f.created_at", kind: "time" },
            updatedAt: { sql: "f.updated_at", kind: "time" },
          },
        },
        LIST_SPECS.fields,
        query,
      );
      return { ...page, rows: page.rows.map(toStoredField) };
    },
    /** Whether a model has live records (its delete precondition), and how many. */
    async countLiveRecords(modelId: string): Promise<number> {
      // Through each context's identity index (context, model): no index leads records by model.
      const row = await db.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM contexts c JOIN records r ON r.context_id = c.id
         WHERE c.workspace_id = ${WORKSPACE} AND r.model_id = (SELECT id FROM models WHERE uuid = ?) AND r.deleted_at IS NULL`,
        [workspace, d.uuid(modelId)],
      );
      return Number(row?.n ?? 0);
    },
    /**
     * A stamp per live model (by id) that changes with every change of its definition:
     * its version, status and updatedAt, in one indexed lookup for all.
     */
    async stamps(ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      // Inside a SQLite write group nothing outside it changes a model, and every model
      // write forgets this: an import's batches ask for the same few models each time.
      return readThroughGroup(db, `model-stamps:${workspace}`, ids, async (wanted) => {
        const rows = await db.all<{ id: string; stamp: string }>(
          `SELECT m.uuid AS id, m.version || ':' || m.status || ':' || m.updated_at AS stamp FROM models m
           WHERE m.workspace_id = ${WORKSPACE} AND m.deleted_at IS NULL AND m.uuid IN (${inList(wanted.length)})`,
          [workspace, ...wanted.map((id) => d.uuid(id))],
        );
        return new Map(rows.map((r) => [r.id, r.stamp]));
      });
    },
    /** Names of every field the model ever had (removed ones too), by fieldId. */
    async fieldNames(modelId: string): Promise<Map<string, string>> {
      const rows = await db.all<{ id: string; name: string }>("SELECT uuid AS id, name FROM fields WHERE model_id = (SELECT id FROM models WHERE uuid = ?)", [d.uuid(modelId)]);
      return new Map(rows.map((r) => [r.id, r.name]));
    },
    async nextPosition(modelId: string): Promise<number> {
      const row = await db.get<{ n: number }>("SELECT COALESCE(MAX(position), -1) + 1 AS n FROM fields WHERE model_id = (SELECT id FROM models WHERE uuid = ?)", [d.uuid(modelId)]);
      return Number(row?.n ?? 0);
    },
  };
}

/** The model repository type. */
export type ModelRepo = ReturnType<typeof createModelRepo>;
