import { errors } from "../../contract/errors.js";
import type { FilterClause, ListQuery, ListSpec, SortKey } from "../../contract/list-query.js";
import { checkListQuery, DEFAULT_LIMIT } from "../../contract/list-query.js";
import { decodeCursor, encodeCursor, type CursorValueKind } from "./list-cursor.js";
import { cursorKeyOf } from "./settings-repo.js";
import type { Dialect, Sql } from "./sql.js";
import { pushAll } from "../../portable/arrays.js";

/**
 * How one API field maps onto SQL. `sql` is trusted text from this file's callers only.
 * Values are bound in the column's stored form: a `uuid` or `time` column takes the API's
 * text (an id, an ISO 8601 time) through the dialect.
 */
export interface ColumnSpec {
  sql: string;
  kind: "text" | "number" | "bool" | "uuid" | "time";
  /** The column may hold NULL (it then sorts first, as the lowest value). */
  nullable?: boolean;
  /**
   * An equivalent of `sql IN (list)` that reaches the rows through an index (`eq` and `in`
   * filters use it); it may repeat `list`, whose values are bound once per use.
   */
  membership?: { sql: (list: string) => string; uses: number };
  /**
   * An index leads with this column (after the workspace): an `eq` or `in` filter on it
   * finds few rows, so the list sorts them rather than walking the sort's index.
   */
  selective?: boolean;
}

/** A listable table: its FROM clause, base condition and API-field → column map. */
export interface ListSource {
  /** `FROM ...` body, joins included. */
  from: string;
  /** Base condition (workspace, not deleted), with its parameters. */
  where: string;
  params: unknown[];
  /** The unique tie-breaker column: the public id (a uuid column; UUIDv7 ids sort by creation). */
  id: string;
  columns: Record<string, ColumnSpec>;
  /** Dotted prefixes that reach into a JSON column, e.g. `{ metadata: "c.metadata" }`. */
  json?: Record<string, string>;
  select: string;
}

/** One page of raw rows. */
export interface RowPage<R> {
  rows: R[];
  nextCursor: string | null;
  hasNextPage: boolean;
}

const JSON_KEY = /^[A-Za-z0-9_-]+$/;

/** Reads a page from `source` honouring filters, sort, limit and keyset cursor. */
export async function listRows<R>(db: Sql, source: ListSource, spec: ListSpec, query: ListQuery = {}): Promise<RowPage<R>> {
  const { dialect } = db;
  checkListQuery(spec, query);
  const sort: SortKey[] = query.sort && query.sort.length > 0 ? query.sort : [...spec.defaultSort];
  const where: string[] = [source.where];
  const params: unknown[] = [...source.params];
  for (const f of query.filters ?? []) {
    const [clause, p] = filterSql(dialect, source, f);
    where.push(clause);
    pushAll(params, p);
  }
  const keys = sort.map((s) => ({ expr: sortExpr(dialect, source, s.field), desc: s.desc, encode: encoderOf(dialect, source, s.field) }));
  // A cursor is signed for its list and sort order, and its values must be of the kinds
  // the sort keys read: a forged or foreign cursor is a 400, never SQL parameters.
  const scope = `${source.from}|${sort.map((s) => `${s.desc ? "-" : ""}${s.field}`).join(",")}`;
  const kinds: CursorValueKind[] = [...sort.map((s) => cursorKind(dialect, source, s.field)), "text"];
  if (query.cursor) {
    const values = decodeCursor(await cursorKeyOf(db), scope, query.cursor, kinds);
    const [clause, p] = keysetSql(keys, { expr: source.id, desc: false, encode: (v) => dialect.uuid(v as string) }, values);
    where.push(clause);
    pushAll(params, p);
  }
  const limit = query.limit ?? DEFAULT_LIMIT;
  // A name looked up per imported context walked every context of the workspace in sort order.
  const selective = (query.filters ?? []).some((f) => (f.op === "eq" || f.op === "in") && source.columns[f.field]?.selective);
  const sortKey = (expr: string) => (selective ? dialect.sortOnly(expr) : expr);
  const order = [...keys.map((k) => `${sortKey(k.expr)} ${k.desc ? "DESC" : "ASC"}`), `${sortKey(source.id)} ASC`].join(", ");
  const sortSelect = keys.map((k, i) => `${k.expr} AS __k${i}`).join(", ");
  const text = `SELECT ${source.select}${sortSelect ? `, ${sortSelect}` : ""}, ${source.id} AS __id FROM ${source.from} WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT ?`;
  // Prepared once per text by the store: a list's SQL varies only with its filters and
  // sort, and a lookup by name repeated per imported context paid a prepare each time.
  const rows = await db.all<R & Record<string, unknown>>(text, [...params, limit + 1]);
  const hasNextPage = rows.length > limit;
  const pageRows = hasNextPage ? rows.slice(0, limit) : rows;
  let nextCursor: string | null = null;
  if (hasNextPage) {
    const last = pageRows[pageRows.length - 1];
    nextCursor = encodeCursor(await cursorKeyOf(db), scope, [...keys.map((_, i) => last[`__k${i}`]), last.__id]);
  }
  return { rows: pageRows, nextCursor, hasNextPage };
}

/** A column, or a JSON key path (`metadata.region`) as `{ sql, kind }` and its JSON forms. */
function column(dialect: Dialect, source: ListSource, field: string): ColumnSpec & { text?: string } {
  const col = source.columns[field];
  if (col) return col;
  const dot = field.indexOf(".");
  const jsonCol = dot > 0 ? source.json?.[field.slice(0, dot)] : undefined;
  if (jsonCol) {
    const segments = field.slice(dot + 1).split(".");
    if (!segments.every((s) => JSON_KEY.test(s))) {
      throw errors.invalid(`filter field "${field}": keys may use letters, digits, '_' and '-' only`);
    }
    // The path is inlined by the dialect, but only after the strict check above.
    return { sql: dialect.jsonPath(jsonCol, segments), text: dialect.jsonText(jsonCol, segments), kind: "text" };
  }
  throw errors.invalid(`unknown field "${field}"`);
}

/**
 * The expression a field sorts by. A column that cannot be NULL is sorted as itself (an
 * index on it then serves the order); NULLs sort as the lowest value of their kind, so the
 * keyset comparison stays total.
 */
function sortExpr(dialect: Dialect, source: ListSource, field: string): string {
  const col = column(dialect, source, field);
  const json = isJsonColumn(source, field);
  if (!json && !col.nullable) return col.sql;
  if (col.kind === "time") return `COALESCE(${col.sql}, ${dialect.name === "sqlite" ? "0" : "'epoch'::timestamptz"})`;
  return col.kind === "text" ? `COALESCE(${col.text ?? col.sql}, '')` : `COALESCE(${col.sql}, 0)`;
}

/** How a keyset value read back from a sort key is bound again. */
function encoderOf(dialect: Dialect, source: ListSource, field: string): (value: unknown) => unknown {
  if (isJsonColumn(source, field)) return (v) => v;
  const col = column(dialect, source, field);
  if (col.kind === "time") return (v) => dialect.time(v as string | number);
  if (col.kind === "uuid") return (v) => dialect.uuid(v as string);
  if (col.kind === "bool") return (v) => (typeof v === "boolean" ? dialect.bool(v) : v);
  return (v) => v;
}

/** The kind of keyset value a sort field yields (see sortExpr). */
function cursorKind(dialect: Dialect, source: ListSource, field: string): CursorValueKind {
  if (isJsonColumn(source, field)) return "scalar";
  const kind = column(dialect, source, field).kind;
  if (kind === "time" || kind === "bool") return "scalar";
  return kind === "text" || kind === "uuid" ? "text" : "number";
}

function isJsonColumn(source: ListSource, field: string): boolean {
  return !source.columns[field];
}

/** ISO 8601 without a zone is read as UTC (the API's times are all UTC). */
function utc(value: string): string {
  return /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value) ? `${value}Z` : value;
}

function typed(dialect: Dialect, col: ColumnSpec, field: string, value: string): unknown {
  if (col.kind === "uuid") return dialect.uuid(value);
  if (col.kind === "time") {
    const ms = Date.parse(utc(value));
    if (Number.isNaN(ms)) throw errors.invalid(`filter ${field}: "${value}" is not an ISO 8601 date or time`);
    return dialect.time(ms);
  }
  if (col.kind === "number") {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n)) throw errors.invalid(`filter ${field}: "${value}" is not a number`);
    return n;
  }
  if (col.kind === "bool") {
    if (value !== "true" && value !== "false") throw errors.invalid(`filter ${field}: "${value}" is not true or false`);
    return dialect.bool(value === "true");
  }
  return value;
}

/** For JSON values, "5" may be the number 5 or the string "5"; "true" a boolean or a string. */
function jsonCandidates(dialect: Dialect, value: string): unknown[] {
  const out: unknown[] = [dialect.jsonValue(value)];
  if (value.trim() !== "" && Number.isFinite(Number(value))) out.push(dialect.jsonValue(Number(value)));
  if (value === "true") out.push(dialect.jsonValue(true));
  if (value === "false") out.push(dialect.jsonValue(false));
  return out;
}

function filterSql(dialect: Dialect, source: ListSource, f: FilterClause): [string, unknown[]] {
  const col = column(dialect, source, f.field);
  const json = isJsonColumn(source, f.field);
  const values = (v: string): unknown[] => (json ? jsonCandidates(dialect, v) : [typed(dialect, col, f.field, v)]);
  switch (f.op) {
    case "eq":
      return membership(col, values(f.value));
    case "ne": {
      const v = values(f.value);
      return [`(${col.sql} IS NULL OR ${col.sql} NOT IN (${v.map(() => "?").join(",")}))`, v];
    }
    case "in":
      return membership(col, f.value.split(",").flatMap((s) => values(s.trim())));
    case "contains":
      return [dialect.containsText(col.kind === "time" ? dialect.timeText(col.sql) : (col.text ?? col.sql)), [f.value]];
    default: {
      const op = { gt: ">", gte: ">=", lt: "<", lte: "<=" }[f.op];
      const n = Number(f.value);
      const v = json ? dialect.jsonValue(f.value.trim() !== "" && Number.isFinite(n) ? n : f.value) : typed(dialect, col, f.field, f.value);
      return [`${col.sql} ${op} ?`, [v]];
    }
  }
}

function membership(col: ColumnSpec, v: unknown[]): [string, unknown[]] {
  const list = v.map(() => "?").join(",");
  if (!col.membership) return [`${col.sql} IN (${list})`, v];
  return [col.membership.sql(list), Array.from({ length: col.membership.uses }, () => v).flat()];
}

interface KeysetKey {
  expr: string;
  desc: boolean;
  encode: (value: unknown) => unknown;
}

function keysetSql(keys: KeysetKey[], id: KeysetKey, values: unknown[]): [string, unknown[]] {
  const all = [...keys, id];
  const ors: string[] = [];
  const params: unknown[] = [];
  for (let i = 0; i < all.length; i++) {
    const parts: string[] = [];
    for (let j = 0; j < i; j++) {
      parts.push(`${all[j].expr} = ?`);
      params.push(all[j].encode(values[j]));
    }
    parts.push(`${all[i].expr} ${all[i].desc ? "<" : ">"} ?`);
    params.push(all[i].encode(values[i]));
    ors.push(`(${parts.join(" AND ")})`);
  }
  return [`(${ors.join(" OR ")})`, params];
}
