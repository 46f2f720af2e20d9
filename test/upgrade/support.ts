import Database from "better-sqlite3";
import { execa, execaSync, type ResultPromise } from "execa";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { BIN, ddsctl } from "../helpers/cli.js";
import type { PgCluster } from "../helpers/pg-cluster.mjs";

/** The fixtures of released schemas (made by test/fixtures/releases/make-fixture.mjs). */
export const RELEASES = resolve(import.meta.dirname, "../fixtures/releases");

/** A keyed request the release answered, to be retried after the upgrade. */
export interface KeyedRequest {
  method: string;
  path: string;
  key: string;
  body: unknown;
  status: number;
  location: string | null;
  response: unknown;
}

/** What make-fixture.mjs noted in replay.json. */
export interface ReplayFacts {
  ids: { webhook: string; record: string; context: string };
  token: string;
  webhookSecret: string;
  /** DDS_SECRET_KEY of a PostgreSQL fixture (SQLite keeps its key file beside the database). */
  secretKey: string | null;
  requests: KeyedRequest[];
}

/** One fixture: its folder and what the release answered on it. */
export interface ReleaseFixture {
  name: string;
  dir: string;
  replay: ReplayFacts;
  views: Record<string, unknown>;
  exported: string;
}

/** Reads the fixture `test/fixtures/releases/<name>`. */
export function releaseFixture(name: string): ReleaseFixture {
  const dir = join(RELEASES, name);
  const read = (file: string) => readFileSync(join(dir, file), "utf8");
  return { name, dir, replay: JSON.parse(read("replay.json")) as ReplayFacts, views: JSON.parse(read("views.json")) as Record<string, unknown>, exported: read("export.ndjson") };
}

/** A database under test: how the CLI reaches it, and raw SQL on it behind the CLI's back. */
export interface Target {
  kind: "sqlite" | "postgres";
  /** A temp folder of its own (the working directory of in-process runs). */
  dir: string;
  /** `--local <file>` or `--database <url>`. */
  flags: string[];
  env: Record<string, string>;
  /** Rows of one statement. */
  query<T>(sql: string): Promise<T[]>;
  /** Runs one statement; the number of rows it changed. */
  exec(sql: string): Promise<number>;
  cleanup(): Promise<void>;
}

/** This process's environment without any DDS_ setting, plus a config home of `dir`'s own. */
function cleanEnv(dir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("DDS_")) env[k] = v;
  return { ...env, NO_COLOR: "1", XDG_CONFIG_HOME: join(dir, "config") };
}

/** A copy of a SQLite fixture (database and key file) in a temp folder. */
export function sqliteTarget(fixture: ReleaseFixture): Target & { db: string } {
  const dir = mkdtempSync(join(tmpdir(), `ddsctl-upgrade-${fixture.name}-`));
  const db = join(dir, "dds.db");
  for (const file of ["dds.db", "dds.db.key"]) if (existsSync(join(fixture.dir, file))) copyFileSync(join(fixture.dir, file), join(dir, file));
  const withDb = <T>(fn: (raw: Database.Database) => T): Promise<T> => {
    const raw = new Database(db);
    try {
      return Promise.resolve(fn(raw));
    } finally {
      raw.close();
    }
  };
  return {
    kind: "sqlite",
    dir,
    db,
    flags: ["--local", db],
    env: cleanEnv(dir),
    query: <T>(sql: string) => withDb((raw) => raw.prepare(sql).all() as T[]),
    exec: (sql: string) => withDb((raw) => raw.prepare(sql).run().changes),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A fresh database on `cluster` restored from a PostgreSQL fixture's dump.sql with psql. */
export async function postgresTarget(cluster: PgCluster, fixture: ReleaseFixture): Promise<Target & { url: string }> {
  const dir = mkdtempSync(join(tmpdir(), `ddsctl-upgrade-${fixture.name}-`));
  const url = await cluster.createDatabase();
  execaSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", join(fixture.dir, "dump.sql")]);
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  return {
    kind: "postgres",
    dir,
    url,
    flags: ["--database", url],
    env: { ...cleanEnv(dir), DDS_SECRET_KEY: fixture.replay.secretKey ?? "" },
    query: async <T>(text: string) => (await sql.unsafe(text)) as unknown as T[],
    exec: async (text: string) => (await sql.unsafe(text)).count,
    async cleanup() {
      await sql.end({ timeout: 1 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One run of the real binary on a target. */
export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `ddsctl <target flags> <args>` through bin/ddsctl; never throws on a non-zero exit. */
export async function cli(target: Target, args: string[]): Promise<CliRun> {
  const r = await execa("node", [BIN, ...target.flags, ...args], { env: target.env, extendEnv: false, reject: false, stripFinalNewline: false });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/**
 * `ddsctl … --json`'s answer, from the CLI run in this process (the helper of
 * test/helpers/cli.ts: many reads, no process each); fails with its stderr when the command did.
 */
export async function cliJson<T = unknown>(target: Target, args: string[]): Promise<T> {
  const box = { dir: target.dir, db: "", mode: "local" as const, banner: "", env: target.env, cleanup: () => undefined };
  const r = await ddsctl(box, [...target.flags, ...args, "--json"]);
  if (r.exitCode !== 0) throw new Error(`ddsctl ${args.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Resolves once the child's stderr matches `pattern`; rejects when it exits first. */
export function stderrMatch(child: ResultPromise, pattern: RegExp): Promise<RegExpExecArray> {
  let seen = "";
  return new Promise((ok, fail) => {
    const check = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = pattern.exec(seen);
      if (m) {
        child.stderr?.off("data", check);
        ok(m);
      }
    };
    child.stderr?.on("data", check);
    void child.then((r) => fail(new Error(`ddsctl exited (${r.exitCode ?? r.signal}) before its stderr showed ${pattern}: ${seen}`)));
  });
}

/** A `ddsctl serve` on a target, listening on a free port of 127.0.0.1. */
export async function startServe(target: Target): Promise<{ origin: string; stop(): Promise<void> }> {
  const child = execa("node", [BIN, ...target.flags, "serve", "--port", "0"], { env: target.env, extendEnv: false, reject: false });
  const [, origin] = await stderrMatch(child, /listening on (http:\/\/\S+?)\/v1/);
  return {
    origin,
    async stop() {
      child.kill("SIGTERM");
      await child;
    },
  };
}

/** Preloaded into a migration the test kills: it holds at the step announced (see the file). */
const HOLD = resolve(import.meta.dirname, "hold-at-step.cjs");

/**
 * Starts `ddsctl migrate` and kills it (SIGKILL) as soon as its stderr announces `step`
 * (the progress line of a non-TTY); resolves with how the process ended.
 */
export async function killMigrationAt(target: Target, step: string): Promise<{ signal: string | undefined; stderr: string }> {
  const child = execa("node", ["--require", HOLD, BIN, ...target.flags, "migrate"], {
    env: { ...target.env, UPGRADE_TEST_HOLD_AT: step },
    extendEnv: false,
    reject: false,
  });
  await stderrMatch(child, new RegExp(`: ${step}\\n`));
  child.kill("SIGKILL");
  const r = await child;
  return { signal: r.signal, stderr: String(r.stderr) };
}

/** Every table, column and index of a target's database, its schema version, and each table's row count. */
export async function schemaState(target: Target): Promise<{ version: number; objects: unknown[]; counts: Record<string, number> }> {
  const sqlite = target.kind === "sqlite";
  const [{ version }] = await target.query<{ version: number }>(sqlite ? "SELECT user_version AS version FROM pragma_user_version" : "SELECT version FROM dds_schema");
  const objects = sqlite
    ? await target.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
    : [
        ...(await target.query("SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, ordinal_position")),
        ...(await target.query("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2")),
      ];
  const tables = await target.query<{ name: string }>(
    sqlite ? "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name" : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) counts[name] = Number((await target.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${name}`))[0].n);
  return { version: Number(version), objects, counts };
}

/**
 * Adds `n` records with two contributions each, in the release's own schema (fresh text
 * UUID ids), copies of the first contribution (its values keyed by field id, as released)
 * and its record (with empty data and lineage, to keep the file small): a database whose
 * upgrade takes a while.
 */
export async function enlarge(target: Target, n: number): Promise<void> {
  const sqlite = target.kind === "sqlite";
  const uuid = sqlite
    ? "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(6)))"
    : "gen_random_uuid()::text";
  const series = sqlite ? `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT i FROM s) s` : `generate_series(1, ${n}) AS s(i)`;
  const template = "(SELECT * FROM contributions ORDER BY id LIMIT 1)";
  await target.exec(`INSERT INTO records (id, workspace, context_id, model_id, identity_key, data, sha256, issues, lineage, created_at, updated_at, created_by)
    SELECT ${uuid}, r.workspace, r.context_id, r.model_id, 'bulk-' || s.i, '{}', r.sha256, '[]', '{}', r.created_at, r.updated_at, r.created_by
    FROM ${series}, records r WHERE r.id = (SELECT record_id FROM ${template} t)`);
  await target.exec(`INSERT INTO contributions (id, workspace, context_id, model_id, record_id, source_id, source_type, data, field_confidences, status, received_at, created_by)
    SELECT ${uuid}, r.workspace, r.context_id, r.model_id, r.id, k.source, t.source_type, t.data, t.field_confidences, 'accepted', t.received_at, t.created_by
    FROM records r, ${template} t, (SELECT 'bulk-a' AS source UNION ALL SELECT 'bulk-b') k WHERE r.identity_key LIKE 'bulk-%'`);
}
