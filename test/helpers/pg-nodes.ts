import { execa, type ResultPromise } from "execa";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { createHttpClient } from "../../src/client/index.js";
import type { DdsService } from "../../src/contract/service.js";
import { issueToken } from "../../src/engine/auth/index.js";
import { openApp } from "../../src/engine/app.js";
import { openDatabase } from "../../src/engine/store/db.js";
import type { Store } from "../../src/engine/store/store.js";
import { createServer, type RunningServer, type ServerOptions } from "../../src/server/index.js";

const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");

/** A serve node running in this process on its own store (pool, listener, key locks). */
export interface InProcessNode {
  origin: string;
  store: Store;
  server: RunningServer;
  close(): Promise<void>;
}

/** Starts a `ddsctl serve` node in-process on the database at `url`. */
export async function startNode(url: string, options: Partial<Omit<ServerOptions, "app">> = {}): Promise<InProcessNode> {
  // The nodes of a test share one key, as `ddsctl serve` nodes share DDS_SECRET_KEY.
  const app = await openApp({ location: url, env: { DDS_SECRET_KEY: SHARED_SECRET_KEY } });
  const server = await createServer({ quiet: true, ...options, app }).listen(0, "127.0.0.1");
  return {
    origin: `http://127.0.0.1:${server.port}`,
    store: app.store,
    server,
    async close() {
      await server.close();
      await app.close();
    },
  };
}

/** Issues a token on the database at `url`, as `ddsctl tokens create` does. */
export async function tokenFor(url: string, scope: "read" | "write" | "admin", workspace = "default"): Promise<string> {
  const store = await openDatabase(url);
  try {
    return (await issueToken(store, { workspace, scopes: [scope] })).token;
  } finally {
    await store.close();
  }
}

/** A `ddsctl serve` child process. */
export interface ServeProcess {
  origin: string;
  child: ResultPromise;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
}

/** The secrets key every node of this test run shares (on PostgreSQL it comes from DDS_SECRET_KEY only). */
export const SHARED_SECRET_KEY = randomBytes(32).toString("base64");

/** Spawns `ddsctl serve --database <url> [args]` on a free port and waits until it listens. */
export async function spawnServe(url: string, args: string[] = []): Promise<ServeProcess> {
  const env = { NO_COLOR: "1", DDS_SECRET_KEY: SHARED_SECRET_KEY };
  const child = execa("node", [BIN, "serve", "--port", "0", "--quiet", "--database", url, ...args], { reject: false, env });
  let seen = "";
  child.stderr?.on("data", (chunk: Buffer) => (seen += chunk.toString()));
  const origin = await new Promise<string>((ok, fail) => {
    const check = () => {
      const m = /listening on (http:\/\/\S+?)\/v1/.exec(seen);
      if (m) {
        child.stderr?.off("data", check);
        ok(m[1]);
      }
    };
    child.stderr?.on("data", check);
    void child.then((r) => fail(new Error(`ddsctl serve exited (${r.exitCode ?? r.signal}) before listening: ${seen}`)));
  });
  return { origin, child, stderr: () => seen };
}

/**
 * One DdsService over several nodes: call i goes to node i mod n, so consecutive requests
 * of a flow land on different nodes (a write on one, the read after it on another).
 */
export function alternating(origins: string[], token: string): DdsService {
  const clients = origins.map((origin) => createHttpClient({ baseUrl: `${origin}/v1`, token }));
  let next = 0;
  return new Proxy({} as DdsService, {
    get(_, name: string) {
      if (name === "close") return async () => void (await Promise.all(clients.map((c) => c.close())));
      if (name === "then") return undefined;
      return (...args: unknown[]) => {
        const client = clients[next++ % clients.length] as unknown as Record<string, (...a: unknown[]) => unknown>;
        return client[name](...args);
      };
    },
  });
}
