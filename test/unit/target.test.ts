import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeTarget, resolveTarget } from "../../src/cli/target.js";

const home = mkdtempSync(join(tmpdir(), "ddsctl-target-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const env = (vars: Record<string, string> = {}) => ({ XDG_CONFIG_HOME: home, ...vars });
const PG = "postgres://dds:secret@db.internal:5432/dds";

describe("where commands run", () => {
  it("--database wins over the environment; DDS_DATABASE_URL wins over DDS_DB and DDS_BASE_URL", () => {
    expect(resolveTarget({ database: PG }, env({ DDS_DB: "a.db", DDS_DATABASE_URL: "b.db" }))).toMatchObject({ mode: "local", db: PG, source: "--database" });
    expect(resolveTarget({}, env({ DDS_DB: "a.db", DDS_DATABASE_URL: PG, DDS_BASE_URL: "http://x/v1" }))).toMatchObject({ mode: "local", db: PG, source: "DDS_DATABASE_URL" });
    expect(resolveTarget({ database: "local.db" }, env())).toMatchObject({ mode: "local", db: "local.db" });
  });

  it("refuses two target flags together and an empty --database", () => {
    expect(() => resolveTarget({ database: PG, local: true }, env())).toThrow(/--database and --local cannot be used together/);
    expect(() => resolveTarget({ database: PG, remote: "http://x/v1" }, env())).toThrow(/--database and --remote/);
    expect(() => resolveTarget({ database: " " }, env())).toThrow(/needs a SQLite path or a postgres:\/\/ URL/);
  });

  it("announces a PostgreSQL target without its password", () => {
    expect(describeTarget(resolveTarget({ database: PG }, env()))).toBe("database postgres://dds:***@db.internal:5432/dds (workspace default)");
    expect(describeTarget(resolveTarget({ local: "x.db" }, env()))).toBe("local x.db (workspace default)");
    expect(describeTarget(resolveTarget({ local: "x.db" }, env()), { workspace: false })).toBe("local x.db");
  });
});
