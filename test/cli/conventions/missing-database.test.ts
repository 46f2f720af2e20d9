import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectErrorLine, ok, run } from "../support.js";

// A read never creates a database: against a missing file it fails (exit 1) and says how to
// create one; a write still creates it on first use.
let box: Sandbox;
beforeAll(() => {
  box = sandbox();
  // The default target, ./.dds/dds.db in the sandbox: no DDS_DB, no remote, no profile.
  Object.assign(box.env, { DDS_DB: "", DDS_BASE_URL: "" });
});
afterAll(() => box.cleanup());

describe("reads against a database that does not exist", () => {
  it("--local /nonexistent/dir/x.db models list fails, says how to create one, and creates nothing", async () => {
    const dir = join(box.dir, "nonexistent", "dir");
    const r = await run(box, ["--local", join(dir, "x.db"), "models", "list"]);
    expectErrorLine(r, 1, /no database at .*x\.db: create one with ddsctl init or ddsctl demo, or run any write/);
    expect(existsSync(join(box.dir, "nonexistent"))).toBe(false);
  });

  it("a read in a new folder does not create ./.dds/dds.db; a write does", async () => {
    for (const args of [["contexts", "list", "--json"], ["models", "get", "Loan"], ["pipeline", "status"], ["tokens", "list"]]) {
      const r = await run(box, args);
      expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/no database at .dds\/dds.db/);
      expect(existsSync(join(box.dir, ".dds"))).toBe(false);
    }
    // A dry run of a writing command plans against an empty database and creates none.
    const doc = join(box.dir, "model.json");
    writeFileSync(doc, JSON.stringify({ kind: "Model", name: "Dry", fields: [{ name: "x", type: "string" }] }));
    const dry = await run(box, ["apply", "-f", doc, "--dry-run"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^model\/Dry created \(dry run\)$/m);
    expect(existsSync(join(box.dir, ".dds"))).toBe(false);
    const created = ok(await run(box, ["contexts", "create", "--name", "first", "--json"]));
    expect(created.name).toBe("first");
    expect(existsSync(join(box.dir, ".dds", "dds.db"))).toBe(true);
    expect(ok(await run(box, ["contexts", "list", "--json"])).data).toHaveLength(1);
  });
});
