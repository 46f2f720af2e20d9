import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPipelineRepo } from "../../../src/engine/store/pipeline-repo.js";
import { openSqliteDatabase } from "../../../src/engine/store/db.js";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectExit, PET_MODEL, writeDoc } from "./helpers.js";

// These tests hold pipeline leases and change statuses through the database file itself,
// which only exists on this side in local mode (the remote project leaves this file out).
describe("wait", () => {
  let box: Sandbox;
  let contextId: string;
  beforeAll(async () => {
    box = sandbox();
    await expectExit(box, ["apply", "-f", writeDoc(box, "pet.yaml", PET_MODEL)], 0);
    contextId = (await expectExit(box, ["contexts", "create", "--name", "w", "--json"], 0)).json().contextId;
  });
  afterAll(() => box.cleanup());

  const addEvidence = (weight: number) =>
    expectExit(box, ["contributions", "add", "--context", contextId, "--model", "Pet", "--source-id", `s${weight}`, "--source-type", "user", "--data", "petId=rex", "--data", `weight=${weight}`, "--no-wait", "--json"], 0);

  it("resolves a stale context and exits 0 (an already resolved one at once)", async () => {
    await addEvidence(1);
    expect((await expectExit(box, ["contexts", "get", contextId, "--json"], 0)).json().freshness).toBe("stale");
    const r = (await expectExit(box, ["wait", contextId, "--json"], 0)).json();
    expect(r).toEqual({ resolved: [contextId], pending: [], unresolvable: [] });
    expect((await expectExit(box, ["wait", contextId], 0)).stdout).toBe(`${contextId} resolved\n`);
  });

  it("exits 5 when the time runs out (another worker holds the context)", async () => {
    await addEvidence(2);
    // A worker elsewhere claimed the context and holds its lease: nothing here may take it over.
    const store = openSqliteDatabase(box.db);
    try {
      const claim = await createPipelineRepo(store.sql).claim("another-worker", 60_000, { only: [contextId] });
      expect(claim?.contextId).toBe(contextId);
      const r = await expectExit(box, ["wait", contextId, "--timeout", "300ms"], 5);
      expect(r.stdout).toBe(`${contextId} pending\n`);
      expect(r.stderr).toMatch(/timed out after 300ms/);
    } finally {
      await store.close();
    }
  });

  it("exits 1 at once for a completed, stale context: the pipeline never processes it", async () => {
    const other = (await expectExit(box, ["contexts", "create", "--name", "done", "--json"], 0)).json().contextId;
    await expectExit(box, ["contributions", "add", "--context", other, "--model", "Pet", "--source-id", "x", "--source-type", "user", "--data", "petId=max", "--no-wait"], 0);
    await expectExit(box, ["contexts", "status", other, "completed"], 0);
    const r = await expectExit(box, ["wait", other, "--timeout", "30s", "--json"], 1);
    expect(r.json().unresolvable).toEqual([{ contextId: other, status: "completed", freshness: "stale" }]);
    expect(r.stderr).toMatch(/reopen it: ddsctl contexts status/);
  });

  it("an unknown context is not found (exit 4)", async () => {
    await expectExit(box, ["wait", "01900000-0000-7000-8000-000000000000"], 4);
  });
});
