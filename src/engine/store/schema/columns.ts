/**
 * The vocabulary of the one schema declaration (tables.ts): column kinds that mean the
 * same on both engines and are spelled by each in its own types (ddl.ts renders them).
 *
 * | kind   | SQLite (declared type → storage)  | PostgreSQL                    |
 * |--------|-----------------------------------|-------------------------------|
 * | key    | INTEGER PRIMARY KEY (the rowid)   | bigint identity primary key   |
 * | ref    | INTEGER                           | bigint                        |
 * | uuid   | UUID → 16-byte BLOB               | uuid                          |
 * | text   | TEXT                              | text COLLATE "C"              |
 * | int    | INTEGER                           | integer                       |
 * | bigint | INTEGER                           | bigint                        |
 * | bool   | BOOLEAN → 0/1                     | boolean                       |
 * | time   | TIMESTAMP → epoch milliseconds    | timestamptz                   |
 * | json   | TEXT                              | json (kept as written)        |
 * | jsonb  | TEXT                              | jsonb (SQL reads inside it)   |
 * | digest | DIGEST → 32-byte BLOB             | bytea                         |
 *
 * SQLite keeps the declared type names UUID, TIMESTAMP, BOOLEAN and DIGEST (their affinity
 * never changes the integers and blobs stored in them), and its executor turns values read
 * from such columns into the API's forms, as PostgreSQL's type parsers do: so one SELECT
 * answers the same JavaScript values on both engines.
 */
export type ColumnKind = "key" | "ref" | "uuid" | "text" | "int" | "bigint" | "bool" | "time" | "json" | "jsonb" | "digest";

/** A column of the declaration. */
export interface Column {
  kind: ColumnKind;
  notNull: boolean;
  /** A literal default (a string, number or boolean), rendered per engine. */
  default?: string | number | boolean;
  /** The values a text column may hold (a CHECK constraint on both engines). */
  oneOf?: readonly string[];
  /** A foreign key: kept only where the engine does not already guarantee the reference. */
  references?: string;
}

type Options = Partial<Omit<Column, "kind">>;
const make =
  (kind: ColumnKind) =>
  (options: Options = {}): Column => ({ kind, notNull: false, ...options });

/** Column builders: `c.text({ notNull: true })`. */
export const c = {
  key: (): Column => ({ kind: "key", notNull: true }),
  ref: (table: string | undefined, options: Options = {}): Column => ({ kind: "ref", notNull: true, ...(table ? { references: table } : {}), ...options }),
  uuid: make("uuid"),
  text: make("text"),
  int: make("int"),
  bigint: make("bigint"),
  bool: make("bool"),
  time: make("time"),
  json: make("json"),
  jsonb: make("jsonb"),
  digest: make("digest"),
};

/** An index and the query it serves (docs/schema.md lists them). */
export interface Index {
  name: string;
  columns: readonly string[];
  unique?: boolean;
  /** A partial index's condition, in SQL both engines read alike. */
  where?: string;
  /** The named query this index exists for. */
  serves: string;
  /** The engines that have it (default both): an index one engine needs and the other's design makes moot. */
  engines?: readonly ("sqlite" | "postgres")[];
}

/** A table of the declaration. */
export interface Table {
  name: string;
  /** What a row is, for docs/schema.md. */
  doc: string;
  columns: Readonly<Record<string, Column>>;
  /** A composite primary key (tables without a `key` column). */
  primaryKey?: readonly string[];
  indexes: readonly Index[];
}
