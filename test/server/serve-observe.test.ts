import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ddsctl, sandbox, type Sandbox } from "../helpers/cli.js";
import { scrape, sampleValue } from "../helpers/prom-text.js";
import { spawnServe } from "../helpers/serve-process.js";

/** `ddsctl serve --metrics-port --log-format json` as a process: what an operator runs and reads. */

let box: Sandbox;
let token: string;

beforeAll(async () => {
  box = sandbox();
  const created = await ddsctl(box, ["tokens", "create", "--scope", "admin", "--workspace", "default", "--json"]);
  expect(created.exitCode, created.stderr).toBe(0);
  token = created.json().token;
});

afterAll(() => box?.cleanup());

describe("ddsctl serve --metrics-port --log-format json", () => {
  it("writes only JSON objects to stderr (listening, requests, stopping, stopped), serves metrics on their own port only, and exits 0", async () => {
    const s = await spawnServe(box, ["--metrics-port", "0", "--log-format", "json"]);
    const origin = s.url.replace(/\/v1$/, "");
    const listening = s
      .stderr()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.event === "listening");
    expect(listening).toMatchObject({ level: "info", msg: `listening on ${s.url}`, url: s.url, metricsUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/), store: "sqlite" });
    const res = await fetch(`${s.url}/contexts`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: '{"name":"observed"}' });
    expect(res.status).toBe(201);
    expect((await fetch(`${origin}/metrics`)).status).toBe(404);
    const text = await scrape(listening.metricsUrl);
    expect(sampleValue(text, "dds_http_request_duration_seconds_count", { method: "POST", route: "/v1/contexts", status_class: "2xx" })).toBe(1);
    expect(sampleValue(text, "dds_db_up")).toBe(1);
    await s.stop();
    expect(s.proc.exitCode).toBe(0);
    const lines = s.stderr().split("\n").filter(Boolean);
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.find((l) => l.msg === "request" && l.method === "POST")).toMatchObject({ route: "/v1/contexts", status: 201, workspace: "default" });
    expect(parsed.map((l) => l.event).filter(Boolean)).toEqual(expect.arrayContaining(["listening", "stopping", "stopped"]));
    expect(s.stderr()).not.toContain(token);
  });

  it("plain logs by default: the address lines as before, and the metrics address", async () => {
    const s = await spawnServe(box, ["--metrics-port", "0"]);
    expect(s.stderr()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/v1\n/);
    await new Promise<void>((resolve) => {
      const check = () => (/metrics on /.test(s.stderr()) ? resolve() : setTimeout(check, 10));
      check();
    });
    expect(s.stderr()).toMatch(/metrics on http:\/\/127\.0\.0\.1:\d+\/metrics\n/);
    await s.stop();
    expect(s.stderr()).toMatch(/stopped\n/);
  });

  it("refuses a bad --metrics-port or --log-format (exit 2)", async () => {
    const port = await ddsctl(box, ["serve", "--metrics-port", "abc"]);
    expect(port.exitCode).toBe(2);
    expect(port.stderr).toMatch(/--metrics-port must be an integer/);
    const format = await ddsctl(box, ["serve", "--log-format", "xml"]);
    expect(format.exitCode).toBe(2);
  });
});
