import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { createContext, createModel, expectErrorLine, ok, run, setStatus, uniq } from "../support.js";

// Wherever a context, model, rule or webhook is named on the command line, its name works
// as well as its id (one resolver); an ambiguous name is exit 2 listing the candidates.
let box: Sandbox;
let model: string;
let contextName: string;
let contextId: string;
let dupName: string;
const dupIds: string[] = [];

beforeAll(async () => {
  box = sandbox();
  model = uniq("Applicant");
  await createModel(box, { name: model, identity: ["applicantId"], fields: [{ name: "applicantId", type: "string" }, { name: "income", type: "number" }] });
  await setStatus(box, "models", model, "active");
  contextName = uniq("haddad-purchase");
  contextId = (await createContext(box, ["--name", contextName])).contextId;
  dupName = uniq("twin");
  for (let i = 0; i < 2; i++) dupIds.push((await createContext(box, ["--name", dupName])).contextId);
});
afterAll(() => box.cleanup());

describe("context names", () => {
  it("contributions add --context <name> binds evidence to that context, and --data on a string field keeps 123 as text", async () => {
    const c = ok(
      await run(box, ["contributions", "add", "--context", contextName, "--model", model, "--source-id", "doc-1", "--source-type", "document", "--data", "applicantId=123", "--data", "income=5000", "--json"]),
    );
    expect(c.contextId).toBe(contextId);
    expect(c.data).toEqual({ applicantId: "123", income: 5000 });
  });

  it("records, contributions and evaluations list --context <name> list that context's items", async () => {
    const records = ok(await run(box, ["records", "list", "--context", contextName, "--json"]));
    expect(records.data).toHaveLength(1);
    expect(records.data[0].contextId).toBe(contextId);
    const contributions = ok(await run(box, ["contributions", "list", "--context", contextName, "--json"]));
    expect(contributions.data.map((c: { contextId: string }) => c.contextId)).toEqual([contextId]);
    const evaluations = await run(box, ["evaluations", "list", "--context", contextName, "--json"]);
    expect(evaluations.exitCode, evaluations.stderr).toBe(0);
  });

  it("contexts get, update, status, wait and pipeline run take the name", async () => {
    expect(ok(await run(box, ["contexts", "get", contextName, "--json"])).contextId).toBe(contextId);
    expect(ok(await run(box, ["contexts", "update", contextName, "--type", "mortgage", "--json"])).type).toBe("mortgage");
    expect(ok(await run(box, ["wait", contextName, "--json"])).resolved).toEqual([contextId]);
    expect((await run(box, ["pipeline", "run", contextName, "--json"])).exitCode).toBe(0);
  });

  it("a name no context has is not found (exit 4), not an empty list", async () => {
    expectErrorLine(await run(box, ["records", "list", "--context", "no-such-case"]), 4, /context no-such-case not found/);
    expectErrorLine(await run(box, ["contributions", "list", "--context", "no-such-case"]), 4, /not found/);
    expectErrorLine(await run(box, ["contexts", "get", "no-such-case"]), 4, /not found/);
  });

  it("an ambiguous name is a usage error (exit 2) that lists every candidate's id", async () => {
    const line = expectErrorLine(await run(box, ["contexts", "get", dupName]), 2, /several contexts are named/);
    for (const id of dupIds) expect(line).toContain(id);
    expectErrorLine(await run(box, ["records", "list", "--context", dupName]), 2, /give the contextId instead/);
    expect(ok(await run(box, ["contexts", "get", dupIds[1], "--json"])).contextId).toBe(dupIds[1]);
  });
});

describe("model, rule and webhook names", () => {
  it("records list --model and fields list take a model name; an unknown model is exit 4", async () => {
    expect(ok(await run(box, ["records", "list", "--model", model, "--json"])).data).toHaveLength(1);
    expect(ok(await run(box, ["fields", "list", model, "--json"])).data).toHaveLength(2);
    expectErrorLine(await run(box, ["records", "list", "--model", "NoSuchModel"]), 4, /model NoSuchModel not found/);
  });

  it("a webhook is named by its URL", async () => {
    const url = `https://example.test/${uniq("hook")}`;
    const created = ok(await run(box, ["webhooks", "create", "--url", url, "--event", "context.resolved", "--json"]));
    expect(ok(await run(box, ["webhooks", "get", url, "--json"])).webhookId).toBe(created.webhookId);
    expect((await run(box, ["webhooks", "delete", url])).exitCode).toBe(0);
    expectErrorLine(await run(box, ["webhooks", "get", url]), 4, /not found/);
  });
});
