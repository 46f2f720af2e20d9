import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../helpers/cli.js";
import { createContext, expectErrorLine, expectProblem, ISO, ok, run, runBody, setStatus, uniq, UUID } from "./support.js";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

/** A context moved into `status` through allowed transitions. */
async function contextIn(status: "active" | "completed" | "archived"): Promise<string> {
  const c = await createContext(box, ["--name", uniq("case")]);
  if (status !== "active") await setStatus(box, "contexts", c.contextId, "completed");
  if (status === "archived") await setStatus(box, "contexts", c.contextId, "archived");
  return c.contextId as string;
}

describe("contexts create and get", () => {
  it("creates an active, resolved context with null name/type and {} metadata by default", async () => {
    const c = await createContext(box);
    expect(Object.keys(c).sort()).toEqual(["contextId", "createdAt", "freshness", "metadata", "name", "resolvedAt", "status", "type", "updatedAt"]);
    expect(c).toMatchObject({ name: null, type: null, metadata: {}, status: "active", freshness: "resolved", resolvedAt: null });
    expect(c.contextId).toMatch(UUID);
    expect(c.createdAt).toMatch(ISO);
    expect(c.updatedAt).toBe(c.createdAt);
  });

  it("takes name, type and --metadata pairs (JSON values parsed, strings kept)", async () => {
    const name = uniq("case");
    const c = await createContext(box, ["--name", name, "--type", "mortgage", "--metadata", "region=west", "--metadata", "branch=17", "--metadata", "zip=01234"]);
    expect(c).toMatchObject({ name, type: "mortgage", metadata: { region: "west", branch: 17, zip: "01234" } });
    expect(ok(await run(box, ["contexts", "get", c.contextId, "--json"]))).toEqual(c);
  });

  it("takes the POST body from stdin; flags override it", async () => {
    const c = ok(await runBody(box, ["contexts", "create"], { name: "from-body", type: "remortgage", metadata: { a: { b: [1, 2] } } }));
    expect(c).toMatchObject({ name: "from-body", type: "remortgage", metadata: { a: { b: [1, 2] } } });
    const o = ok(await run(box, ["contexts", "create", "-f", "-", "--name", "flag-wins", "--json"], '{"name":"body","type":"t"}'));
    expect(o).toMatchObject({ name: "flag-wins", type: "t" });
  });

  it("a malformed --metadata pair is a usage error (exit 2)", async () => {
    expectErrorLine(await run(box, ["contexts", "create", "--metadata", "noequals"]), 2, /key=value/);
  });

  it("--summary adds exactly {records, evaluations, stale, lastResolvedAt}", async () => {
    const c = await createContext(box, ["--name", uniq("case")]);
    const g = ok(await run(box, ["contexts", "get", c.contextId, "--summary", "--json"]));
    expect(g).toEqual({
      ...c,
      summary: {
        records: { total: 0, byModel: {} },
        evaluations: { total: 0, passed: 0, failed: 0, stale: 0 },
        stale: { records: 0, evaluations: 0 },
        lastResolvedAt: null,
      },
    });
    expect(ok(await run(box, ["contexts", "get", c.contextId, "--json"]))).not.toHaveProperty("summary");
  });

  it("renders a readable view with the summary without --json", async () => {
    const c = await createContext(box, ["--name", uniq("case"), "--type", "mortgage"]);
    const r = await run(box, ["contexts", "get", c.contextId, "--summary"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^contextId:\\s+${c.contextId}$`, "m"));
    expect(r.stdout).toMatch(/^status:\s+active$/m);
    expect(r.stdout).toMatch(/^freshness:\s+resolved$/m);
    expect(r.stdout).toMatch(/^records:\s+0$/m);
  });
});

describe("contexts update (PATCH)", () => {
  it("changes only the given properties", async () => {
    const c = await createContext(box, ["--name", "before", "--type", "mortgage", "--metadata", "region=west"]);
    const u = ok(await run(box, ["contexts", "update", c.contextId, "--type", "remortgage", "--json"]));
    expect(u).toEqual({ ...c, type: "remortgage", updatedAt: u.updatedAt });
    const m = ok(await runBody(box, ["contexts", "update", c.contextId], { metadata: { region: "east", tier: 2 } }));
    expect(m).toMatchObject({ name: "before", type: "remortgage", metadata: { region: "east", tier: 2 } });
    const cleared = ok(await runBody(box, ["contexts", "update", c.contextId], { name: null }));
    expect(cleared).toMatchObject({ name: null, type: "remortgage" });
  });

  it("rejects status or freshness in the body with 400 (exit 1) and changes nothing", async () => {
    const c = await createContext(box, ["--name", uniq("case")]);
    const p = expectProblem(await runBody(box, ["contexts", "update", c.contextId], { status: "completed" }), 1, 400, "invalid_request");
    expect(p.detail).toMatch(/status and freshness are not changed by PATCH/);
    expectErrorLine(await run(box, ["contexts", "update", c.contextId, "-f", "-"], '{"freshness":"stale"}'), 1, /freshness/);
    expect(ok(await run(box, ["contexts", "get", c.contextId, "--json"]))).toEqual(c);
  });

  it("an unknown property is 400 naming it (exit 1)", async () => {
    const c = await createContext(box);
    const p = expectProblem(await runBody(box, ["contexts", "update", c.contextId], { nmae: "typo" }), 1, 400, "invalid_request");
    expect(p.detail).toContain('"nmae"');
  });

  it("nothing to change is a usage error (exit 2)", async () => {
    const c = await createContext(box);
    expectErrorLine(await run(box, ["contexts", "update", c.contextId]), 2, /nothing to change/);
  });
});

describe("context lifecycle", () => {
  const allowed: [string, "active" | "completed", string][] = [
    ["active → completed", "active", "completed"],
    ["completed → active (reopen)", "completed", "active"],
    ["completed → archived", "completed", "archived"],
  ];
  for (const [label, from, to] of allowed) {
    it(`${label} succeeds; freshness is not affected`, async () => {
      const id = await contextIn(from);
      const c = await setStatus(box, "contexts", id, to);
      expect(c).toMatchObject({ contextId: id, status: to, freshness: "resolved" });
      expect(ok(await run(box, ["contexts", "get", id, "--json"])).status).toBe(to);
    });
  }

  const invalid: [string, "active" | "completed" | "archived", string][] = [
    ["active → archived", "active", "archived"],
    ["archived → active", "archived", "active"],
    ["archived → completed", "archived", "completed"],
    ["active → active", "active", "active"],
    ["completed → completed", "completed", "completed"],
    ["archived → archived", "archived", "archived"],
  ];
  for (const [label, from, to] of invalid) {
    it(`${label} is 422 invalid_transition (exit 1) and changes nothing`, async () => {
      const id = await contextIn(from);
      const before = ok(await run(box, ["contexts", "get", id, "--json"]));
      expectProblem(await run(box, ["contexts", "status", id, to, "--json"]), 1, 422, "invalid_transition");
      expect(ok(await run(box, ["contexts", "get", id, "--json"]))).toEqual(before);
    });
  }

  it("says how to get from active to archived: the moves, and the commands that make them", async () => {
    const id = await contextIn("active");
    expectErrorLine(
      await run(box, ["contexts", "status", id, "archived"]),
      1,
      new RegExp(`move it to completed first \\(run: ddsctl contexts status ${id} completed && ddsctl contexts status ${id} archived\\)$`),
    );
  });

  it("accepts spellings case-insensitively and rejects unknown ones with 400", async () => {
    const id = await contextIn("active");
    expect((await setStatus(box, "contexts", id, "Completed")).status).toBe("completed");
    const p = expectProblem(await run(box, ["contexts", "status", id, "closed", "--json"]), 1, 400, "invalid_request");
    expect(p.detail).toContain("closed");
  });
});

describe("contexts delete", () => {
  it("refuses active and completed contexts with 409 context_not_archived (exit 1)", async () => {
    for (const status of ["active", "completed"] as const) {
      const id = await contextIn(status);
      const p = expectProblem(await run(box, ["contexts", "delete", id, "--json"]), 1, 409, "context_not_archived");
      expect(p.detail).toContain(status);
      expect(ok(await run(box, ["contexts", "get", id, "--json"])).status).toBe(status);
    }
  });

  it("deletes an archived context: exit 0, then get is 404 (exit 4) and it leaves the list", async () => {
    const name = uniq("gone");
    const c = await createContext(box, ["--name", name]);
    await setStatus(box, "contexts", c.contextId, "completed");
    await setStatus(box, "contexts", c.contextId, "archived");
    const d = await run(box, ["contexts", "delete", c.contextId, "--json"]);
    expect(d.exitCode).toBe(0);
    expect(d.stdout).toBe("");
    expectProblem(await run(box, ["contexts", "get", c.contextId, "--json"]), 4, 404, "not_found");
    expectErrorLine(await run(box, ["contexts", "delete", c.contextId]), 4, /not found/);
    expectErrorLine(await run(box, ["contexts", "status", c.contextId, "active"]), 4, /not found/);
    expect(ok(await run(box, ["contexts", "list", "--filter", `name=${name}`, "--json"])).data).toEqual([]);
    const all = ok(await run(box, ["contexts", "list", "--all", "--json"]));
    expect(all.data.map((x: { contextId: string }) => x.contextId)).not.toContain(c.contextId);
  });
});
