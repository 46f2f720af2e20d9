import { columnType, createIndexSql, createTableSql, defaultLiteral, indexesOn, type Engine } from "./ddl.js";
import { TABLES } from "./tables.js";

/**
 * Schema changes made once for both engines. After the compact schema (SQLite schema 5,
 * PostgreSQL schema 2) a change is: edit the declaration (tables.ts), then append a
 * migration here whose steps name what changed; each engine's migration list renders the
 * same steps in its own SQL, from the declaration itself. The schema test upgrades every
 * released database and compares it with the declaration, so a step that is missing or
 * wrong fails the suite. A step that moves data may give each engine's SQL (`sql`).
 *
 * A database of an earlier schema than the compact one is rebuilt by the compact-keys
 * migration straight into the declared schema, and skips these (`buildsLatest`): a step
 * that renames a column must therefore also rename it in that migration's copy statements.
 */
export type SchemaStep =
  | { addColumn: { table: string; column: string } }
  | { createIndex: { table: string; index: string } }
  | { dropIndex: string }
  | { createTable: string }
  | { sql: Record<Engine, string> };

/** A migration shared by both engines. */
export interface SharedMigration {
  name: string;
  steps: readonly SchemaStep[];
}

/** The migrations after the compact schema, in order. */
export const SHARED_MIGRATIONS: readonly SharedMigration[] = [
  {
    // Passes that resolve only what changed: what a context's last pass covered, and when each
    // record's evidence last changed. An upgraded database has no pass stamp yet, so each
    // context's first pass after the upgrade resolves every record, as before.
    name: "incremental-passes",
    steps: [
      { addColumn: { table: "contexts", column: "passed_version" } },
      { addColumn: { table: "contexts", column: "pass_id" } },
      { addColumn: { table: "contexts", column: "pass_stamp" } },
      { addColumn: { table: "records", column: "changed_version" } },
      { createIndex: { table: "records", index: "records_changed" } },
    ],
  },
  {
    // Rate limits: a workspace's and a token's own limit (NULL: the server's default), and
    // the budgets the nodes on PostgreSQL share. Nothing to fill in: an upgraded database
    // has every workspace and token on the defaults, and every budget full.
    name: "rate-limits",
    steps: [
      { addColumn: { table: "workspaces", column: "rate_limit" } },
      { addColumn: { table: "tokens", column: "rate_limit" } },
      { createTable: "rate_budgets" },
    ],
  },
  {
    // Tokens that expire (`tokens create --expires-in 90d`). Tokens made before keep NULL:
    // they never expire, as when they were made.
    name: "token-expiry",
    steps: [{ addColumn: { table: "tokens", column: "expires_at" } }],
  },
  {
    // When a context turned stale, for the age of the oldest one (a metric). Contexts stale
    // at the upgrade have waited since then at least: they get its time.
    name: "stale-since",
    steps: [
      { addColumn: { table: "contexts", column: "stale_since" } },
      {
        sql: {
          sqlite: "UPDATE contexts SET stale_since = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) WHERE freshness <> 'resolved';",
          postgres: "UPDATE contexts SET stale_since = now() WHERE freshness <> 'resolved';",
        },
      },
    ],
  },
  {
    // records_changed became partial (changed_version > 0: the records a pass has left to
    // resolve, a few of them) after a release had made it whole: a database of that release
    // gets the declared index. Rebuilt on every database; on the others it is small anyway.
    name: "records-changed-partial",
    steps: [{ dropIndex: "records_changed" }, { createIndex: { table: "records", index: "records_changed" } }],
  },
];

const tableOf = (name: string) => {
  const table = TABLES.find((t) => t.name === name);
  if (!table) throw new Error(`no table ${name} in the declaration`);
  return table;
};

/** One step's SQL on `engine`, read from the declaration. */
export function stepSql(engine: Engine, step: SchemaStep): string {
  if ("sql" in step) return step.sql[engine];
  if ("dropIndex" in step) return `DROP INDEX ${step.dropIndex};`;
  if ("createTable" in step) {
    const table = tableOf(step.createTable);
    return [createTableSql(engine, table), ...indexesOn(engine, table).map((i) => createIndexSql(table, i))].join("\n");
  }
  if ("createIndex" in step) {
    const table = tableOf(step.createIndex.table);
    const index = table.indexes.find((i) => i.name === step.createIndex.index);
    if (!index) throw new Error(`no index ${step.createIndex.index} on ${table.name} in the declaration`);
    return createIndexSql(table, index);
  }
  const { table: name, column } = step.addColumn;
  const col = tableOf(name).columns[column];
  if (!col) throw new Error(`no column ${name}.${column} in the declaration`);
  const d = defaultLiteral(engine, col);
  const check = col.oneOf ? ` CHECK (${column} IN (${col.oneOf.map((v) => `'${v}'`).join(", ")}))` : "";
  return `ALTER TABLE ${name} ADD COLUMN ${column} ${columnType(engine, col)}${col.notNull ? " NOT NULL" : ""}${d === undefined ? "" : ` DEFAULT ${d}`}${check};`;
}

/** A shared migration's SQL on `engine`. */
export function migrationSql(engine: Engine, migration: SharedMigration): string {
  return migration.steps.map((s) => stepSql(engine, s)).join("\n");
}
