import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { issueToken } from "../../src/engine/auth/index.js";
import { openApp } from "../../src/engine/app.js";
import { BIN } from "../helpers/cli.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";

/**
 * How a node stops: `serve --quiet` still writes its events in the plain format (the
 * SIGTERM line and `stopped`), and nothing is left to keep the process up once it says
 * `stopped`: closing the database waits for no timeout (a reserved connection used to hold
 * the driver's end() for its full second).
 */
let cluster: PgCluster;
let url: string;
beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
});
afterAll(async () => {
  await cluster?.stop();
});

describe("a node stopping", () => {
  it("under --quiet still writes the SIGTERM line and stopped, plain, as its last lines, and exits 0", async () => {
    const app = await openApp({ location: url, env: {} });
    const { token } = await issueToken(app.store, { workspace: "default", scopes: ["admin"] });
    await app.close();
    const node = execa("node", [BIN, "serve", "--port", "0", "--quiet", "--database", url], { reject: false, env: { NO_COLOR: "1" } });
    let stderr = "";
    const origin = await new Promise<string>((done, fail) => {
      node.stderr!.on("data", (d: Buffer) => {
        stderr += d.toString();
        const m = /listening on (http:\/\/\S+?)\/v1/.exec(stderr);
        if (m) done(m[1]);
      });
      node.then((r) => fail(new Error(`serve exited ${r.exitCode}: ${stderr}`)), fail);
    });
    // A keyed write: it reserves the connection that holds the node's Idempotency-Key marks.
    const created = await fetch(`${origin}/v1/contexts`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": "shutdown-1" },
      body: JSON.stringify({ name: "case-1" }),
    });
    expect(created.status).toBe(201);
    node.kill("SIGTERM");
    const result = await node;
    expect(result.exitCode).toBe(0);
    const lines = String(result.stderr).trimEnd().split("\n");
    expect(lines.slice(-2)).toEqual(["SIGTERM: draining in-flight requests and the current pass", "stopped"]);
    // --quiet silenced the request line, nothing else.
    expect(String(result.stderr)).not.toMatch(/"method"/);
  });

  it("closes its database without waiting out a timer, once its Idempotency-Key connection was used", async () => {
    const app = await openApp({ location: url, env: {} });
    const lock = await app.store.lockKey!("default", "shutdown-key");
    expect(lock).toBeDefined();
    await lock!.release();
    // Timers stand still from here: a close that waits on one never ends.
    const realTimeout = globalThis.setTimeout;
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const closed = app.close().then(() => "closed");
      const verdict = await Promise.race([closed, new Promise((r) => realTimeout(() => r("still closing after 20 s"), 20_000))]);
      expect(verdict).toBe("closed");
    } finally {
      vi.useRealTimers();
    }
  }, 30_000);
});
