import { getRequestListener } from "@hono/node-server";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator, issueToken } from "../../src/engine/auth/index.js";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { openSqliteDatabase, type SqliteStore } from "../../src/engine/store/db.js";
import { createApp } from "../../src/server/app.js";
import { appOver } from "../../src/engine/app.js";

/**
 * A keyed bulk request whose client went away while the server was still busy before
 * reading the body (its database slow to answer the token lookup, as during a fault), then
 * retried with the same key. The server must not read what is left of that request as an
 * empty body and keep its 400 under the key: the retry, a valid batch, would be answered
 * with that 400 for 24 hours.
 */
let dir: string;
let store: SqliteStore;
let server: Server;
let port: number;
let token: string;
let modelId: string;
let contextId: string;
/** While set, every token lookup waits for it: the slow database. */
let stall: Promise<void> | undefined;
let entered: () => void = () => undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ddsctl-body-gone-"));
  store = openSqliteDatabase(join(dir, "dds.db"));
  token = (await issueToken(store, { workspace: "default", scopes: ["admin"] })).token;
  const engine = createLocalEngine({ db: store });
  modelId = (await engine.createModel({ name: "Pet", identity: ["petId"], fields: [{ name: "petId", type: "string" }] })).modelId;
  await engine.setModelStatus(modelId, "active");
  contextId = (await engine.createContext({ name: "c1" })).contextId;
  const real = createAuthenticator(store);
  const auth: typeof real = {
    cached: () => undefined,
    async authenticate(t, stamp) {
      if (stall) {
        entered();
        await stall;
      }
      return real.authenticate(t, stamp);
    },
  };
  const app = createApp({ app: appOver(store, { env: {} }), activity: { lastWriteAt: 0, closing: false }, auth });
  server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const body = () => JSON.stringify({ items: [{ contextId, modelId, sourceId: "s1", sourceType: "user", data: { petId: "p1" } }] });
const headers = (key: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key });

describe("a keyed request whose client left before its body was read", () => {
  it("is not answered (nor remembered) as a request without a body: the retry runs", async () => {
    const key = "gone-1";
    let release!: () => void;
    stall = new Promise<void>((r) => (release = r));
    const inAuth = new Promise<void>((r) => (entered = r));
    // The whole request is sent; the client gives up while the server waits on the database.
    const arrived = new Promise<IncomingMessage>((r) => server.prependOnceListener("request", r));
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((r) => socket.once("connect", r));
    const text = body();
    const head = Object.entries({ ...headers(key), host: `127.0.0.1:${port}`, "content-length": String(Buffer.byteLength(text)) })
      .map(([k, v]) => `${k}: ${v}`)
      .join("\r\n");
    socket.write(`POST /v1/contributions/bulk HTTP/1.1\r\n${head}\r\n\r\n${text}`);
    const request = await arrived;
    await inAuth;
    // The server sees the client go and discards what it had not read of the request.
    const discarded = new Promise((r) => (request.readableEnded ? r(undefined) : request.once("end", r).once("close", r)));
    socket.destroy();
    await discarded;
    stall = undefined;
    release();
    // The abandoned request finishes on the server (whatever it does, it must not keep a 400).
    const keyState = () => store.sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM idempotency_keys WHERE key = ? AND state = 'running'", [key]);
    for (let i = 0; i < 200 && (await keyState())!.n > 0; i++) await new Promise((r) => setTimeout(r, 10));
    const retry = await fetch(`http://127.0.0.1:${port}/v1/contributions/bulk`, { method: "POST", headers: headers(key), body: text });
    const answer = (await retry.json()) as { summary?: { succeeded: number }; detail?: string };
    expect({ status: retry.status, detail: answer.detail }).toEqual({ status: 200, detail: undefined });
    expect(answer.summary?.succeeded).toBe(1);
  });
});
