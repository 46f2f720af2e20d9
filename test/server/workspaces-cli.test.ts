import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";
import { startServer, type Harness } from "./harness.js";

// An in-process command works in a workspace of its database, as a token does on the
// server: one database, the same data whichever door it is reached by.
let box: Sandbox;
let h: Harness;
let token: string;
/** In-process on the server's database, as a platform team's importer runs. */
let inProcess: Record<string, string>;

const model = { kind: "Model", name: "Person", identity: ["personId"], fields: [{ name: "personId", type: "string" }, { name: "name", type: "string" }] };
const line = (n: number) => JSON.stringify({ contextRef: "onboarding", modelName: "Person", sourceId: `hr-${n}`, sourceType: "integration", data: { personId: `p${n}`, name: `Person ${n}` } });

beforeAll(async () => {
  box = sandbox();
  h = await startServer({ dbPath: box.db });
  token = (await ddsctl(box, ["tokens", "create", "--workspace", "acme", "--scope", "admin", "--json"])).json().token;
  inProcess = { DDS_DB: "", DDS_DATABASE_URL: box.db };
});

afterAll(async () => {
  await h?.close(true);
  box?.cleanup();
});

const remote = (args: string[]) => ddsctl(box, ["--remote", h.origin, "--token", token, ...args]);

describe("workspaces in-process", () => {
  it("a model made through the API in workspace acme is found by an in-process import with --workspace acme", async () => {
    const file = join(box.dir, "person.json");
    writeFileSync(file, JSON.stringify(model));
    expect((await remote(["apply", "-f", file])).exitCode).toBe(0);
    const input = join(box.dir, "people.ndjson");
    writeFileSync(input, `${[1, 2, 3].map(line).join("\n")}\n`);

    // The default workspace has no such model: every line is refused, as before.
    const elsewhere = await ddsctl(box, ["import", "contributions", input, "--create-contexts", "--json", "--rejects", join(box.dir, "r0.ndjson")], { env: inProcess });
    expect(elsewhere.exitCode).toBe(3);
    expect(elsewhere.json()).toMatchObject({ created: 0, failed: 3 });

    const r = await ddsctl(box, ["--workspace", "acme", "import", "contributions", input, "--create-contexts", "--json"], { env: inProcess });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ created: 3, failed: 0 });
    expect(r.stderr.split("\n")[0]).toBe(`local ${box.db} (workspace acme)`);
    // Remote clients of that workspace see what the in-process import wrote.
    const seen = await remote(["contributions", "list", "--context", "onboarding", "--json"]);
    expect(seen.json().data).toHaveLength(3);
  });

  it("DDS_WORKSPACE and a local profile's workspace pick it too; a flag wins", async () => {
    const viaEnv = await ddsctl(box, ["contexts", "list", "-o", "name"], { env: { ...inProcess, DDS_WORKSPACE: "acme" } });
    expect(viaEnv.stdout).toBe("context/onboarding\n");
    const init = await ddsctl(box, ["--workspace", "acme", "init", "--mode", "local", "--db", box.db, "--profile-name", "acme", "--yes", "--json"], { env: { DDS_DB: "" } });
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.json()).toMatchObject({ name: "acme", mode: "local", workspace: "acme" });
    const viaProfile = await ddsctl(box, ["contexts", "list", "-o", "name"], { env: { DDS_DB: "" } });
    expect(viaProfile.stderr).toMatch(/\(workspace acme\)$/m);
    expect(viaProfile.stdout).toBe("context/onboarding\n");
    const flag = await ddsctl(box, ["--workspace", "default", "contexts", "list", "-o", "name"], { env: { DDS_DB: "", DDS_WORKSPACE: "acme" } });
    expect(flag.stdout).not.toContain("onboarding");
    expect((await ddsctl(box, ["profiles", "remove", "acme", "--yes"])).exitCode).toBe(0);
  });

  it("remotely the workspace is the token's: --workspace there is a usage error; a bad name is one too", async () => {
    const r = await remote(["--workspace", "acme", "contexts", "list"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/acts in the workspace of its token/);
    // DDS_WORKSPACE is ambient: a remote target leaves it alone.
    expect((await ddsctl(box, ["--remote", h.origin, "--token", token, "contexts", "list", "-o", "name"], { env: { DDS_WORKSPACE: "other" } })).stdout).toBe("context/onboarding\n");
    const bad = await ddsctl(box, ["--workspace", "no spaces", "contexts", "list"], { env: inProcess });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/workspace "no spaces" must be 1-64 letters/);
  });
});

describe("a saved login", () => {
  it("--remote with the URL of a saved profile uses that profile's token (the URL written either way)", async () => {
    const login = await ddsctl(box, ["login", "--url", `${h.origin}/v1`, "--token", token, "--profile-name", "acme-api"]);
    expect(login.exitCode, login.stderr).toBe(0);
    const r = await ddsctl(box, ["--remote", h.origin, "contexts", "list", "-o", "name"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("context/onboarding\n");
    expect((await ddsctl(box, ["--remote", `${h.origin}/v1/`, "contexts", "list", "-o", "name"])).stdout).toBe("context/onboarding\n");
    // Another URL gets no token from it.
    const other = await ddsctl(box, ["--remote", "http://127.0.0.1:1/v1", "contexts", "list"]);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(/needs an API token/);
  });

  it("after login, demo stays on the local database; the logged-in service is left alone", async () => {
    const r = await ddsctl(box, ["demo", "--json"], { env: { DDS_DB: "" } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.split("\n")[0]).toBe("local .dds/dds.db (workspace default)");
    expect(r.json().contexts).toHaveLength(30);
    // The service (its workspace acme) still holds only what this file put there.
    expect((await remote(["contexts", "list", "-o", "name"])).stdout).toBe("context/onboarding\n");
  });
});
