/**
 * `GET /v1/contexts/{id}/relationships`: a case's whole record graph in one read, the
 * links removed through the API included and marked, per workspace. The studio draws its
 * graph from it; `ddsctl relationships list --context` prints it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { startServer, type Harness } from "../server/harness.js";
import { seedWorkspace, type Seeded } from "../server/seed.js";

let h: Harness;
let s: Seeded;
let token: string;

beforeAll(async () => {
  h = await startServer();
  token = await h.token("admin");
  s = await seedWorkspace(h, token);
});
afterAll(() => h.close());

describe("GET /v1/contexts/{contextId}/relationships", () => {
  it("lists every current link of the context's records", async () => {
    const r = await h.request("GET", `/v1/contexts/${s.contextId}/relationships`, { token });
    expect(r.status).toBe(200);
    const applicants = r.json.data.filter((l: { relationshipName: string }) => l.relationshipName === "applicants");
    expect(applicants).toEqual([{ sourceRecordId: s.loanRecordId, relationshipName: "applicants", targetRecordId: s.applicantRecordId, createdAt: expect.any(String), removedAt: null }]);
    // The same answer from the engine the CLI uses locally and from the HTTP client.
    const local = createLocalEngine({ db: h.store, workspace: "default" });
    expect(await local.listContextRelationships(s.contextId)).toEqual(r.json);
    expect(await s.client.listContextRelationships(s.contextId)).toEqual(r.json);
  });

  it("keeps a link removed through the API, marked with when it was removed", async () => {
    const removed = await h.request("DELETE", `/v1/records/${s.loanRecordId}/relationships/applicants/${s.applicantRecordId}`, { token });
    expect(removed.status).toBe(204);
    const r = await h.request("GET", `/v1/contexts/${s.contextId}/relationships`, { token });
    const link = r.json.data.find((l: { relationshipName: string }) => l.relationshipName === "applicants");
    expect(link).toEqual({ sourceRecordId: s.loanRecordId, relationshipName: "applicants", targetRecordId: s.applicantRecordId, createdAt: null, removedAt: expect.any(String) });
    expect(Date.parse(link.removedAt)).not.toBeNaN();
  });

  it("is 404 for another workspace's context and for an unknown one, 401 without a token", async () => {
    const other = await h.token("read", "elsewhere");
    expect((await h.request("GET", `/v1/contexts/${s.contextId}/relationships`, { token: other })).json.code).toBe("not_found");
    expect((await h.request("GET", `/v1/contexts/00000000-0000-4000-8000-000000000000/relationships`, { token })).status).toBe(404);
    expect((await h.request("GET", `/v1/contexts/${s.contextId}/relationships`)).status).toBe(401);
  });
});
