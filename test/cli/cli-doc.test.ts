import { execa } from "execa";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// docs/cli.md's runnable blocks (marked `<!-- cli-doc:run -->`), pasted line by line in
// order into a new folder where ddsctl is installed, with a fresh HOME, as a reader would:
// every line must work as written. The install is the one thing done for the reader (the
// folder gets this checkout linked in as node_modules/ddsctl, as the README tour's test
// does), and port 8080 becomes a free port, so the test never meets another server.
const ROOT = resolve(import.meta.dirname, "../..");
const DOC = readFileSync(join(ROOT, "docs/cli.md"), "utf8");
const blocks = [...DOC.matchAll(/<!-- cli-doc:run -->\s*```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
const dir = mkdtempSync(join(tmpdir(), "ddsctl-cli-doc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
    s.on("error", fail);
  });
}

describe("docs/cli.md, pasted line by line", () => {
  it("marks its runnable blocks: the demo, lists, completion, import, export, serving", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    for (const word of ["demo", "--filter", "completion bash", "import contributions", "export", "serve"]) expect(blocks.join("\n"), word).toContain(word);
  });

  it("every block runs in order in a fresh folder with a fresh HOME, and shows what it says", async () => {
    mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
    symlinkSync(ROOT, join(dir, "node_modules", "ddsctl"));
    symlinkSync(join("..", "ddsctl", "bin", "ddsctl"), join(dir, "node_modules", ".bin", "ddsctl"));
    const port = await freePort();
    const script = blocks.join("\n").replace(/\b8080\b/g, String(port));
    const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), NO_COLOR: "1", PATH: process.env.PATH ?? "", npm_config_update_notifier: "false" };
    // `set -m`: job control, as in the terminal a reader pastes into, so `kill %1` stops the
    // whole background job (npx and the server it started), not npx alone.
    const r = await execa("bash", ["-e", "-c", `set -m\n${script}\nwait`], { cwd: dir, env, extendEnv: false, reject: false, timeout: 180_000, cleanup: true });
    expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr, r.stderr).not.toMatch(/^error:/m);
    // The demo's cases by region, and a jq filter over every page.
    expect(r.stdout).toContain("context/mensah-purchase");
    expect(r.stdout).toMatch(/^kowalski-family$/m);
    // The import, then the same evidence from stdin: replayed, not added twice.
    expect(r.stdout).toMatch(/"replayed": 1/);
    // The export replayed into another database fails the same rule the same way.
    expect(r.stdout).toMatch(/max-debt-to-income/);
    expect(r.stdout).toMatch(/\bFAIL\b/);
    // The remote list and the OpenAPI document through the served API.
    expect(r.stdout).toMatch(/^Loan\b|\bLoan\b/m);
    expect(r.stdout).toContain('{"openapi":"3.1');
    expect(r.stderr).toContain(`listening on http://127.0.0.1:${port}/v1`);
  }, 240_000);
});
