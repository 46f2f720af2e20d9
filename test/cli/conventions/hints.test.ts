import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { createContext, createModel, expectErrorLine, messages, ok, run, setStatus, uniq } from "../support.js";

// A hint that names commands names ones that work: following it, word for word, gets there.
let box: Sandbox;
let model: string;

beforeAll(async () => {
  box = sandbox();
  model = uniq("Pet");
  await createModel(box, { name: model, identity: ["petId"], fields: [{ name: "petId", type: "string" }, { name: "age", type: "integer" }] });
  await setStatus(box, "models", model, "active");
});
afterAll(() => box.cleanup());

/** The commands of a `(run: ddsctl … && ddsctl …)` hint, as argument lists. */
function hinted(line: string): string[][] {
  const m = /\(run: (.*)\)$/.exec(line);
  expect(m, `no commands in: ${line}`).not.toBeNull();
  return m![1].split(" && ").map((c) => {
    const words = c.split(" ");
    expect(words[0]).toBe("ddsctl");
    return words.slice(1);
  });
}

async function follow(line: string): Promise<void> {
  for (const args of hinted(line)) {
    const r = await run(box, args);
    expect(r.exitCode, `ddsctl ${args.join(" ")}: ${r.stderr}`).toBe(0);
  }
}

describe("hints name a path that works", () => {
  it("contexts delete of an active context: complete it, then archive it; following the hint deletes it", async () => {
    const name = uniq("okafor-purchase");
    await createContext(box, ["--name", name]);
    const line = expectErrorLine(await run(box, ["contexts", "delete", name, "--yes"]), 1, new RegExp(`^error: context ${name} is active: move it to completed, then archived before deleting it`));
    expect(hinted(line)).toEqual([
      ["contexts", "status", name, "completed"],
      ["contexts", "status", name, "archived"],
    ]);
    await follow(line);
    expect((await run(box, ["contexts", "delete", name, "--yes"])).exitCode).toBe(0);
  });

  it("contexts status <active> archived: the hint completes it first", async () => {
    const name = uniq("case");
    await createContext(box, ["--name", name]);
    const line = expectErrorLine(await run(box, ["contexts", "status", name, "archived"]), 1, /move it to completed first/);
    await follow(line);
    expect(ok(await run(box, ["contexts", "get", name, "--json"])).status).toBe("archived");
  });

  it("models delete of a draft: activate, then archive; following the hint deletes it", async () => {
    const draft = uniq("Draft");
    await createModel(box, { name: draft, fields: [{ name: "x", type: "number" }] });
    const line = expectErrorLine(await run(box, ["models", "delete", draft, "--yes"]), 1, /is draft: move it to active, then archived before deleting it/);
    await follow(line);
    expect((await run(box, ["models", "delete", draft, "--yes"])).exitCode).toBe(0);
  });

  it("evidence for an archived context says it is permanent, not to reopen it (which the service refuses)", async () => {
    const name = uniq("closed");
    await createContext(box, ["--name", name]);
    await setStatus(box, "contexts", name, "completed");
    const add = ["contributions", "add", "--context", name, "--model", model, "--source-id", "s", "--source-type", "user", "--data", "petId=p1"];
    const completed = expectErrorLine(await run(box, add), 1);
    // In the user's words, with the commands the docs promise.
    expect(completed).toBe(`error: context ${name} is completed: move it to active before adding evidence (run: ddsctl contexts status ${name} active)`);
    await setStatus(box, "contexts", name, "archived");
    const line = expectErrorLine(await run(box, add), 1, new RegExp(`^error: context ${name} is archived: archived contexts are permanent: adding evidence is not possible`));
    expect(line).not.toMatch(/reopen|\(run:/);
  });

  it("evidence for a completed context: following the hint reopens it, and the evidence goes in", async () => {
    const name = uniq("done");
    await createContext(box, ["--name", name]);
    await setStatus(box, "contexts", name, "completed");
    const add = ["contributions", "add", "--context", name, "--model", model, "--source-id", "s", "--source-type", "user", "--data", "petId=p1"];
    await follow(expectErrorLine(await run(box, add), 1));
    expect((await run(box, add)).exitCode).toBe(0);
  });
});

describe("results in the user's words", () => {
  it("wait and pipeline run report contexts by the names they were given", async () => {
    const name = uniq("okafor-purchase");
    const id = (await createContext(box, ["--name", name])).contextId;
    const add = ["contributions", "add", "--context", name, "--model", model, "--source-id", "s", "--source-type", "user", "--data", "petId=p1", "--no-wait"];
    expect((await run(box, add)).exitCode).toBe(0);
    const waited = await run(box, ["wait", name]);
    expect(waited.exitCode, waited.stderr).toBe(0);
    expect(waited.stdout).toBe(`${name} resolved\n`);
    expect((await run(box, ["wait", id])).stdout).toBe(`${id} resolved\n`);
    const ran = await run(box, ["pipeline", "run", name]);
    expect(ran.stdout).toMatch(new RegExp(`^resolved: ${name}$`, "m"));
    expect(messages(ran).join("\n")).not.toContain(id);
  });

  it("pipeline run of every stale context names them by their names, ids stay in --json", async () => {
    const own = sandbox();
    try {
      const pet = uniq("Pet");
      await createModel(own, { name: pet, identity: ["petId"], fields: [{ name: "petId", type: "string" }] });
      await setStatus(own, "models", pet, "active");
      const names = [uniq("okafor-purchase"), uniq("haddad-purchase")];
      const ids: string[] = [];
      for (const name of names) {
        ids.push((await createContext(own, ["--name", name])).contextId);
        const add = ["contributions", "add", "--context", name, "--model", pet, "--source-id", "s", "--source-type", "user", "--data", "petId=p1", "--no-wait"];
        expect((await run(own, add)).exitCode).toBe(0);
      }
      const ran = await run(own, ["pipeline", "run"]);
      expect(ran.exitCode, ran.stderr).toBe(0);
      expect(ran.stdout).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
      // Remotely the server's worker may have resolved them before the run asked.
      if (own.mode === "local") {
        const byId = [...names.keys()].sort((a, b) => (ids[a] < ids[b] ? -1 : 1)).map((i) => names[i]);
        expect(ran.stdout).toMatch(new RegExp(`^resolved: +2 context\\(s\\): ${byId.join(", ")}$`, "m"));
        expect(ok(await run(own, ["pipeline", "run", "--json"])).resolved).toEqual([]);
      }
    } finally {
      own.cleanup();
    }
  });

  it("trace names the context as it was given, with its id", async () => {
    const name = uniq("trace-case");
    const id = (await createContext(box, ["--name", name])).contextId;
    const rule = uniq("age-known");
    expect((await run(box, ["rules", "create", "--name", rule, "--category", "data_quality", "--severity", "low", "--expression", `{"!!":[{"var":"${model}.age"}]}`])).exitCode).toBe(0);
    const t = await run(box, ["trace", name, rule]);
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stdout).toMatch(new RegExp(`^context: +${name} \\(${id}\\)$`, "m"));
  });
});
