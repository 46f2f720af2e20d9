import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TokenScope } from "../../src/contract/routes.js";
import { issueToken } from "../../src/engine/auth/index.js";
import { openApp } from "../../src/engine/app.js";
import type { SqliteStore } from "../../src/engine/store/db.js";
import { createServer, type RunningServer, type ServerOptions } from "../../src/server/index.js";

/** An in-process server on 127.0.0.1:0 over a fresh temporary database. */
export interface Harness {
  dir: string;
  dbPath: string;
  store: SqliteStore;
  server: RunningServer;
  /** `http://127.0.0.1:<port>` (no /v1). */
  origin: string;
  /** Issues a token directly on the store (as `ddsctl tokens create` does). */
  token(scope: TokenScope, workspace?: string): Promise<string>;
  /** Raw HTTP: path relative to the origin; a non-string body is sent as JSON. */
  request(method: string, path: string, init?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<Reply>;
  /** Closes the server and the store; `keep` leaves the database for a restart. */
  close(keep?: boolean): Promise<void>;
}

/** A reply with its body already read (JSON when it parses). */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests index freely into API JSON
  json: any;
}

/** Starts a server; `dbPath` reuses an existing database (restart tests). */
export async function startServer(options: Partial<Omit<ServerOptions, "app">> & { dbPath?: string } = {}): Promise<Harness> {
  const dir = options.dbPath ? join(options.dbPath, "..") : mkdtempSync(join(tmpdir(), "ddsctl-server-"));
  const dbPath = options.dbPath ?? join(dir, "dds.db");
  const app = await openApp({ location: dbPath, env: {} });
  const store = app.store as SqliteStore;
  const server = await createServer({ quiet: true, ...options, app }).listen(0, "127.0.0.1");
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    dir,
    dbPath,
    store,
    server,
    origin,
    token: async (scope, workspace = "default") => (await issueToken(store, { workspace, scopes: [scope] })).token,
    async request(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.token) headers.authorization = `Bearer ${init.token}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
        headers["content-type"] ??= "application/json";
      }
      const res = await fetch(`${origin}${path}`, { method, headers, body });
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json };
    },
    async close(keep = false) {
      await server.close();
      await app.close();
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}
