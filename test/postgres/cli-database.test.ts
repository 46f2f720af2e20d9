import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";

let cluster: PgCluster;
let box: Sandbox;
beforeAll(async () => {
  cluster = await startPostgres();
  box = sandbox();
});
afterAll(async () => {
  box?.cleanup();
  await cluster?.stop();
});

describe("--database and DDS_DATABASE_URL", () => {
  it("run any command in-process on PostgreSQL: tokens, writes, reads, the demo", async () => {
    const url = await cluster.createDatabase();
    const token = await ddsctl(box, ["--database", url, "tokens", "create", "--workspace", "acme", "--scope", "admin", "--json"]);
    expect(token.exitCode, token.stderr).toBe(0);
    expect(token.json().token).toMatch(/^dds_/);
    expect(token.stderr).toContain(`database postgres://dds@127.0.0.1:${cluster.port}/`);

    const env = { DDS_DATABASE_URL: url };
    const created = await ddsctl(box, ["contexts", "create", "--name", "on-pg", "--json"], { env });
    expect(created.exitCode, created.stderr).toBe(0);
    const listed = await ddsctl(box, ["contexts", "list", "--json"], { env });
    expect(listed.json().data.map((c: { name: string }) => c.name)).toEqual(["on-pg"]);

    const demo = await ddsctl(box, ["--database", url, "demo", "--json"]);
    expect(demo.exitCode, demo.stderr).toBe(0);
    expect(demo.json().contexts.length).toBeGreaterThanOrEqual(30);
  });

  it("imports NDJSON exactly once: a rerun of the file replays every batch", async () => {
    const url = await cluster.createDatabase();
    const env = { DDS_DATABASE_URL: url };
    const model = { name: "Pet", identity: ["petId"], fields: [{ name: "petId", type: "string" }, { name: "age", type: "integer" }] };
    writeFileSync(join(box.dir, "pet.json"), JSON.stringify(model));
    expect((await ddsctl(box, ["models", "create", "-f", "pet.json", "--json"], { env })).exitCode).toBe(0);
    expect((await ddsctl(box, ["models", "status", "Pet", "active"], { env })).exitCode).toBe(0);
    const lines = Array.from({ length: 250 }, (_, i) =>
      JSON.stringify({ contextRef: `case-${i % 5}`, modelName: "Pet", sourceId: `s${i % 3}`, sourceType: "user", data: { petId: `p${i % 7}`, age: i % 20 } }),
    );
    writeFileSync(join(box.dir, "pets.ndjson"), `${lines.join("\n")}\n`);
    const first = await ddsctl(box, ["import", "contributions", "pets.ndjson", "--create-contexts", "--json"], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({ lines: 250, created: 250, failed: 0, complete: true });
    const again = await ddsctl(box, ["import", "contributions", "pets.ndjson", "--create-contexts", "--json"], { env });
    expect(again.json()).toMatchObject({ lines: 250, created: 0, replayed: 250 });
    const listed = await ddsctl(box, ["contributions", "list", "--limit", "500", "--json"], { env });
    expect(listed.json().data).toHaveLength(250);
  });

  it("takes precedence over DDS_DB, and two target flags together are a usage error", async () => {
    const url = await cluster.createDatabase();
    const r = await ddsctl(box, ["--database", url, "contexts", "list", "--json"], { env: { DDS_DB: "/nonexistent/never.db" } });
    expect(r.exitCode, r.stderr).toBe(0);
    const both = await ddsctl(box, ["--database", url, "--local", "x.db", "contexts", "list"]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/--database and --local cannot be used together/);
  });
});

describe("ddsctl migrate", () => {
  it("reports pending migrations with --check (exit 1), applies them, then reports the schema up to date", async () => {
    const url = await cluster.createDatabase();
    const before = await ddsctl(box, ["--database", url, "migrate", "--check", "--json"]);
    expect(before.exitCode).toBe(1);
    expect(before.json()).toMatchObject({ kind: "postgres", version: 0, applied: 0 });
    expect(before.json().pending).toBeGreaterThan(0);
    const applied = await ddsctl(box, ["--database", url, "migrate", "--json"]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.json()).toMatchObject({ pending: 0, applied: before.json().pending });
    const after = await ddsctl(box, ["--database", url, "migrate", "--check"]);
    expect(after.exitCode).toBe(0);
    expect(after.stdout).toMatch(/up to date/);
  });

  it("works on SQLite too, and a check of a missing file creates nothing", async () => {
    const missing = await ddsctl(box, ["--local", "nothing-here.db", "migrate", "--check"]);
    expect(missing.exitCode).toBe(4);
    const made = await ddsctl(box, ["--local", "made.db", "migrate", "--json"]);
    expect(made.exitCode, made.stderr).toBe(0);
    expect(made.json()).toMatchObject({ kind: "sqlite", pending: 0 });
  });
});
