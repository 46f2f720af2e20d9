import { execa, type ResultPromise } from "execa";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectExit } from "./helpers.js";

/** Profiles only matter without DDS_DB, which the sandbox sets: blank it. */
const NO_DB = { DDS_DB: "" };

describe("init and profiles", () => {
  let box: Sandbox;
  const config = () => join(box.dir, "config", "ddsctl", "config.json");
  const readConfig = () => JSON.parse(readFileSync(config(), "utf8"));
  beforeAll(() => {
    box = sandbox();
  });
  afterAll(() => box.cleanup());

  it("init with flags creates the database and a 0600 config with the profile current", async () => {
    const r = await expectExit(box, ["init", "--mode", "local", "--db", "one/dds.db", "--json"], 0, { env: NO_DB });
    const db = join(box.dir, "one", "dds.db");
    expect(r.json()).toEqual({ name: "default", mode: "local", target: db, current: true, hasToken: false });
    expect(existsSync(db)).toBe(true);
    expect(statSync(config()).mode & 0o777).toBe(0o600);
    expect(readConfig()).toEqual({ current: "default", profiles: { default: { mode: "local", db } } });
  });

  it("without a terminal, missing answers take their defaults, or are usage errors when there is none", async () => {
    await expectExit(box, ["init", "--profile-name", "dflt", "--json"], 0, { env: NO_DB });
    expect(readConfig().profiles.dflt).toEqual({ mode: "local", db: join(box.dir, ".dds", "dds.db") });
    expect((await expectExit(box, ["init", "--mode", "remote"], 2)).stderr).toMatch(/--url is required when there is no terminal/);
    expect((await expectExit(box, ["init", "--mode", "sideways"], 2)).stderr).toMatch(/--mode must be local or remote/);
    expect((await expectExit(box, ["init", "--profile-name", "no/slash"], 2)).stderr).toMatch(/profile name/);
  });

  it("profiles list, use and remove (tokens never shown)", async () => {
    await expectExit(box, ["init", "--mode", "local", "--db", "two.db", "--profile-name", "two"], 0, { env: NO_DB });
    const listed = (await expectExit(box, ["profiles", "list", "--json"], 0)).json();
    expect(listed.current).toBe("two");
    expect(listed.profiles.map((p: { name: string; current: boolean }) => [p.name, p.current])).toEqual([["default", false], ["dflt", false], ["two", true]]);
    const text = await expectExit(box, ["profiles", "list"], 0);
    expect(text.stdout).toMatch(/^two\tlocal\t.*two\.db\t\*$/m);
    expect((await expectExit(box, ["profiles", "use", "default"], 0)).stdout).toMatch(/now using profile default: local /);
    expect(readConfig().current).toBe("default");
    await expectExit(box, ["profiles", "use", "ghost"], 4);
    await expectExit(box, ["profiles", "remove", "dflt"], 0);
    await expectExit(box, ["profiles", "remove", "dflt"], 4);
    expect(Object.keys(readConfig().profiles).sort()).toEqual(["default", "two"]);
  });

  it("precedence: --local > --profile > DDS_DB > DDS_PROFILE > the current profile", async () => {
    await expectExit(box, ["contexts", "create", "--name", "in-one"], 0, { env: NO_DB });
    const names = async (args: string[], env: Record<string, string>) =>
      ((await expectExit(box, [...args, "contexts", "list", "--json"], 0, { env })).json().data as { name: string }[]).map((c) => c.name);
    expect(await names([], NO_DB)).toEqual(["in-one"]);
    expect(await names([], { ...NO_DB, DDS_PROFILE: "two" })).toEqual([]);
    expect(await names(["--profile", "default"], { ...NO_DB, DDS_PROFILE: "two" })).toEqual(["in-one"]);
    expect(await names([], { DDS_DB: join(box.dir, "one", "dds.db"), DDS_PROFILE: "two" })).toEqual(["in-one"]);
    expect(await names(["--local", join(box.dir, "two.db"), "--profile", "default"], NO_DB)).toEqual([]);
    const banner = await expectExit(box, ["contexts", "list"], 0, { env: { ...NO_DB, DDS_PROFILE: "two" } });
    expect(banner.stderr).toMatch(/^local .*two\.db \(workspace default\)$/m);
    await expectExit(box, ["contexts", "list"], 2, { env: { ...NO_DB, DDS_PROFILE: "ghost" } });
  });

  it("removing the current profile falls back to ./.dds/dds.db", async () => {
    await expectExit(box, ["profiles", "remove", "default"], 0);
    expect(readConfig().current).toBeUndefined();
    const r = await expectExit(box, ["contexts", "list"], 0, { env: NO_DB });
    expect(r.stderr).toMatch(/^local \.dds\/dds\.db \(workspace default\)$/m);
  });
});

describe("login", () => {
  let box: Sandbox;
  let token: string;
  let server: ResultPromise | undefined;
  let url: string;
  beforeAll(async () => {
    box = sandbox();
    token = (await expectExit(box, ["tokens", "create", "--scope", "read", "--json"], 0)).json().token;
    server = execa("node", [BIN, "serve", "--port", "0", "--quiet"], { cwd: box.dir, env: box.env, reject: false });
    url = await new Promise<string>((resolve, reject) => {
      let err = "";
      server!.stderr!.on("data", (d: Buffer) => {
        err += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]);
      });
      server!.then((r) => reject(new Error(`serve exited ${r.exitCode}: ${err}`)), reject);
    });
  });
  afterAll(() => {
    server?.kill("SIGTERM");
    box.cleanup();
  });

  it("flag problems are usage errors (no terminal to ask on)", async () => {
    expect((await expectExit(box, ["login"], 2)).stderr).toMatch(/no service URL: pass --url/);
    expect((await expectExit(box, ["login", "--url", url], 2)).stderr).toMatch(/no token: pass --token/);
    expect((await expectExit(box, ["login", "--url", url, "--token", "x", "--token-stdin"], 2, { input: "y" })).stderr).toMatch(/give the token once/);
    expect((await expectExit(box, ["login", "--url", url, "--token-stdin"], 2, { input: "\n" })).stderr).toMatch(/empty token/);
  });

  it("a refused token or an unreachable service exits 1 and saves nothing", async () => {
    expect((await expectExit(box, ["login", "--url", url, "--token", "dds_wrong"], 1)).stderr).toMatch(/refused the token/);
    expect((await expectExit(box, ["login", "--url", "http://127.0.0.1:1/v1", "--token", token], 1)).stderr).toMatch(/cannot reach/);
    expect(existsSync(join(box.dir, "config", "ddsctl", "config.json"))).toBe(false);
  });

  it("a good token from stdin is checked, saved 0600 and used by later commands; list never shows it", async () => {
    const r = await expectExit(box, ["login", "--url", url, "--token-stdin", "--profile-name", "srv", "--json"], 0, { input: `${token}\n` });
    expect(r.json()).toEqual({ name: "srv", mode: "remote", target: url, current: true, hasToken: true });
    const path = join(box.dir, "config", "ddsctl", "config.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8")).profiles.srv).toEqual({ mode: "remote", baseUrl: url, token });
    const list = await expectExit(box, ["profiles", "list", "--json"], 0);
    expect(list.stdout).not.toContain(token);
    const models = await expectExit(box, ["models", "list", "--json"], 0, { env: NO_DB });
    expect(models.stderr).toMatch(/^remote /m);
    expect(models.json()).toMatchObject({ models: [] });
  });
});
