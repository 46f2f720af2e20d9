import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";

let box: Sandbox;
let token: string;
const running: ResultPromise[] = [];

beforeAll(async () => {
  box = sandbox();
  const created = await ddsctl(box, ["tokens", "create", "--scope", "admin", "--workspace", "default", "--json"]);
  expect(created.exitCode, created.stderr).toBe(0);
  token = created.json().token;
});

afterAll(() => {
  for (const p of running) p.kill("SIGKILL");
  box?.cleanup();
});

/** Spawns `ddsctl serve --port 0` and resolves with its base URL once it listens. */
async function serve(extra: string[] = []): Promise<{ proc: ResultPromise; url: string; stderr: () => string }> {
  const proc = execa("node", [BIN, "serve", "--port", "0", ...extra], { cwd: box.dir, env: box.env, reject: false });
  running.push(proc);
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    proc.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    proc.then((r) => reject(new Error(`serve exited ${r.exitCode}: ${stderr}`)), reject);
  });
  return { proc, url, stderr: () => stderr };
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

describe("ddsctl serve", () => {
  it("refuses a remote target", async () => {
    const r = await ddsctl(box, ["serve", "--remote", "http://127.0.0.1:1/v1"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/serve runs on a database/);
  });

  it("prints its address even with --quiet, and --quiet silences the access log", async () => {
    const s = await serve(["--quiet"]);
    expect((await fetch(s.url.replace(/\/v1$/, "/healthz"))).status).toBe(200);
    s.proc.kill("SIGINT");
    const result = await s.proc;
    expect(result.exitCode).toBe(0);
    expect(s.stderr()).not.toMatch(/"method"/);
  });

  it("SIGTERM under load: exit 0, and no acknowledged write is lost across a restart", async () => {
    const first = await serve();
    const model = await api(first.url, "POST", "/models", { name: "Item", identity: ["key"], fields: [{ name: "key", type: "string" }, { name: "n", type: "integer" }] });
    expect(model.status).toBe(201);
    await api(first.url, "PUT", `/models/${model.json.modelId}/status/active`);
    const contextId = (await api(first.url, "POST", "/contexts", { name: "load" })).json.contextId;
    const item = (key: string) => ({ contextId, modelId: model.json.modelId, sourceId: "load", sourceType: "system", data: { key, n: 1 } });

    let acked = 0;
    let next = 0;
    let stopped = false;
    const worker = async (w: number) => {
      while (!stopped) {
        try {
          if (w % 2 === 0) {
            // a slow request: a batch of 100 contributions
            const batch = Array.from({ length: 100 }, () => item(`k${next++}`));
            const res = await api(first.url, "POST", "/contributions/bulk", { items: batch });
            if (res.status === 200) acked += res.json.summary.succeeded;
          } else {
            const res = await api(first.url, "POST", "/contributions", item(`k${next++}`));
            if (res.status === 201) acked++;
          }
        } catch {
          stopped = true; // the server has stopped accepting connections
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    // Stop it mid-load: once some writes have been acknowledged (however long that takes).
    while (acked === 0 && !stopped) await new Promise((r) => setTimeout(r, 10));
    first.proc.kill("SIGTERM");
    const result = await first.proc;
    stopped = true;
    await load;
    expect(result.exitCode, first.stderr()).toBe(0);
    expect(first.stderr()).toContain("SIGTERM: draining");
    expect(acked).toBeGreaterThan(0);

    const second = await serve(["--quiet"]);
    let count = 0;
    let cursor = "";
    for (;;) {
      const page = await api(second.url, "GET", `/records?filter[contextId][eq]=${contextId}&limit=500${cursor}`);
      count += page.json.data.length;
      if (!page.json.hasNextPage) break;
      cursor = `&cursor=${encodeURIComponent(page.json.nextCursor)}`;
    }
    expect(count).toBeGreaterThanOrEqual(acked);
    second.proc.kill("SIGTERM");
    expect((await second.proc).exitCode).toBe(0);
  });
});
