import { execa } from "execa";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The README's tour, pasted line by line into a new, empty folder, as a newcomer would:
// every line must work as written. The install line is the one thing replaced: the folder
// gets this checkout linked in as node_modules/ddsctl, which is what it installs.
const ROOT = resolve(import.meta.dirname, "../..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const block = /<!-- tour:start -->\s*```sh\n([\s\S]*?)```\s*<!-- tour:end -->/.exec(README)?.[1] ?? "";
const dir = mkdtempSync(join(tmpdir(), "ddsctl-tour-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the README tour", () => {
  it("is there, and starts by installing ddsctl into the folder", () => {
    expect(block.split("\n")[0]).toMatch(/^npm install --no-save \S+$/);
  });

  it("runs line by line in an empty folder and shows what it says", async () => {
    mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
    symlinkSync(ROOT, join(dir, "node_modules", "ddsctl"));
    symlinkSync(join("..", "ddsctl", "bin", "ddsctl"), join(dir, "node_modules", ".bin", "ddsctl"));
    const script = block.split("\n").slice(1).join("\n");
    const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), NO_COLOR: "1", PATH: process.env.PATH ?? "", npm_config_update_notifier: "false" };
    const r = await execa("bash", ["-e", "-c", script], { cwd: dir, env, extendEnv: false, reject: false });
    expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^PASS\b/m);
    expect(r.stdout).toMatch(/^FAIL\b/m);
    expect(r.stdout).toContain("context/case-42\ncontext/case-43\ncontext/case-44");
    expect(r.stderr).not.toMatch(/error:/);
    // The tour writes only into its own folder, never into the installed package.
    expect(readdirSync(join(ROOT, "examples", "tour")).filter((f) => f.includes(".checkpoint.") || f.includes(".rejects."))).toEqual([]);
  }, 120_000);
});
