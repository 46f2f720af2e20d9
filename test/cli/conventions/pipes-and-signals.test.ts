import { execa } from "execa";
import { existsSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ddsctl, sandbox, type Sandbox } from "../../helpers/cli.js";
import { contribution, setupModels } from "../import/support.js";

// These run the real binary: closed pipes and signals are about the process itself.
let box: Sandbox;
/** Enough contexts, each with a kilobyte of metadata, that every listing overflows a pipe's buffer. */
const CONTEXTS = 150;

beforeAll(async () => {
  box = sandbox();
  await setupModels(box);
  const blob = "x".repeat(1024);
  const docs = Array.from({ length: CONTEXTS }, (_, i) => ({ kind: "Context", name: `piped-${i}`, metadata: { blob } }));
  writeFileSync(join(box.dir, "contexts.json"), JSON.stringify(docs));
  const r = await ddsctl(box, ["apply", "-f", join(box.dir, "contexts.json"), "--quiet"]);
  expect(r.exitCode, r.stderr).toBe(0);
}, 120_000);
afterAll(() => box.cleanup());

/** Runs `ddsctl <args> | head -1` in bash and returns ddsctl's exit status and stderr. */
async function intoHead(args: string[]): Promise<{ status: number; stderr: string; stdout: string }> {
  const quoted = args.map((a) => `'${a}'`).join(" ");
  const r = await execa("bash", ["-c", `node '${BIN}' ${quoted} 2>ddsctl.err | head -1; echo "status=\${PIPESTATUS[0]}"; cat ddsctl.err >&2`], {
    cwd: box.dir,
    env: box.env,
    extendEnv: true,
    reject: false,
  });
  const status = Number(/status=(\d+)/.exec(r.stdout)?.[1] ?? -1);
  return { status, stderr: r.stderr, stdout: r.stdout.replace(/status=\d+\n?$/, "") };
}

describe("a reader that stops early (| head)", () => {
  for (const args of [
    ["contexts", "list", "--all", "--limit", "500", "-o", "wide"],
    ["contexts", "list", "--all", "--limit", "500", "--json"],
    ["export", "--all"],
  ]) {
    it(`ddsctl ${args.join(" ")} | head -1 ends quietly with exit 0`, async () => {
      const r = await intoHead(args);
      expect(r.stdout.split("\n").filter(Boolean)).toHaveLength(1);
      expect(r.stderr).not.toMatch(/EPIPE|error|Unhandled/);
      expect(r.status, r.stderr).toBe(0);
    });
  }
});

describe("Ctrl-C", () => {
  let server: Server;
  let port: number;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // A service that accepts connections and never answers: the CLI waits until interrupted.
    server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((ok) => server.close(() => ok()));
  });

  it("while waiting on the service: one line, exit 130", async () => {
    const child = execa("node", [BIN, "--remote", `http://127.0.0.1:${port}/v1`, "--token", "t", "models", "list"], { cwd: box.dir, env: box.env, reject: false });
    let seen = "";
    await new Promise<void>((ok) => child.stderr!.on("data", (d: Buffer) => ((seen += d.toString()), seen.includes("remote http") && ok())));
    child.kill("SIGINT");
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(String(r.stderr).split("\n").filter((l) => l && !l.startsWith("remote "))).toEqual(["interrupted"]);
  });

  it("during an import: the summary, the --resume command, exit 130", async () => {
    const checkpoint = join(box.dir, "signal.checkpoint.json");
    const child = execa("node", [BIN, "import", "contributions", "-", "--checkpoint", checkpoint, "--create-contexts", "--json"], { cwd: box.dir, env: box.env, reject: false });
    for (let i = 0; i < 300; i++) child.stdin!.write(`${contribution(`signal-${i % 3}`, "Loan", `sig-${i}`, { amount: 200_000 + i })}\n`);
    // The stdin stays open: wait until the first batches are checkpointed, then press Ctrl-C.
    while (!existsSync(checkpoint)) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGINT");
    const r = await child;
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ complete: false });
    expect(String(r.stderr)).toMatch(/^interrupted after line \d+; continue with: ddsctl import contributions - --checkpoint \S+ --create-contexts --json --resume$/m);
  });
});
