import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, type Sandbox } from "../helpers/cli.js";
import { startServer, type Harness } from "../server/harness.js";

/**
 * Where a name may stand for an id, as the README and the docs say it: in the CLI, wherever
 * it takes a context, model, rule or webhook (locally and remotely alike); in the REST API's
 * paths never, since the interface defines them by id. Checked against a real server, over
 * HTTP and through the CLI in remote mode, where both meet.
 */
const ROOT = join(import.meta.dirname, "../..");
const prose = (path: string) => readFileSync(join(ROOT, path), "utf8").replace(/\s+/g, " ");

let h: Harness;
let token: string;
let box: Sandbox;
let modelId: string;
let leaseId: string;
beforeAll(async () => {
  h = await startServer({ worker: false, webhooks: false });
  token = await h.token("admin");
  const dir = mkdtempSync(join(tmpdir(), "ddsctl-names-"));
  const env = { XDG_CONFIG_HOME: join(dir, "config"), NO_COLOR: "1", DDS_BASE_URL: `${h.origin}/v1`, DDS_API_TOKEN: token };
  box = { dir, db: "", mode: "remote", banner: `remote ${h.origin}/v1`, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  const model = async (name: string) => {
    const created = await h.request("POST", "/v1/models", { token, body: { name, fields: [{ name: "amount", type: "number" }] } });
    expect(created.status, created.text).toBe(201);
    return created.json.modelId as string;
  };
  modelId = await model("TourLoan");
  leaseId = await model("TourLease");
});
afterAll(async () => {
  box?.cleanup();
  await h?.close();
});

describe("names and ids", () => {
  it("the README says the CLI takes names and the REST paths ids only, and the docs it links to say so", () => {
    const readme = prose("README.md");
    const says = (sentence: string, where = readme) => expect(where.includes(sentence), `says: ${sentence}`).toBe(true);
    expect(readme.includes("names work wherever an id does"), "the README's old claim, true of the CLI only").toBe(false);
    says("a command takes a context's, model's, rule's or webhook's name wherever it takes its id ([docs/cli.md](docs/cli.md#names))");
    says("the REST API's paths take ids only, as its interface defines them ([docs/rest-api.md](docs/rest-api.md#ids-in-paths))");
    says("## Ids in paths", prose("docs/rest-api.md"));
    says("paths take ids only ([rest-api.md](rest-api.md#ids-in-paths))", prose("docs/cli.md"));
  });

  it("a REST path with a name is a 404 problem, the same path with the id answers, and a list's filter finds the id by name", async () => {
    const byName = await h.request("PUT", "/v1/models/TourLoan/status/active", { token });
    expect([byName.status, byName.json.code]).toEqual([404, "not_found"]);
    expect((await h.request("GET", "/v1/models/TourLoan", { token })).status).toBe(404);
    const found = await h.request("GET", "/v1/models?filter[name][eq]=TourLoan", { token });
    expect(found.json.models.map((m: { modelId: string }) => m.modelId)).toEqual([modelId]);
    const byId = await h.request("PUT", `/v1/models/${modelId}/status/active`, { token });
    expect([byId.status, byId.json.status]).toEqual([200, "active"]);
  });

  it("the CLI takes the name where the path takes the id, remotely too", async () => {
    expect((await h.request("PUT", "/v1/models/TourLease/status/active", { token })).status).toBe(404);
    const r = await ddsctl(box, ["models", "status", "TourLease", "active", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ modelId: leaseId, name: "TourLease", status: "active" });
    expect((await ddsctl(box, ["models", "get", `model/${leaseId}`, "--json"])).json()).toMatchObject({ name: "TourLease", status: "active" });
  });
});
