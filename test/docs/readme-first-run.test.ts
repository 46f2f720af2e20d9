/**
 * The README's two commands in a fresh clone: after `npm install`, the first `npx ddsctl
 * demo` runs the demo without building again. In a checkout npm (libnpmexec) runs a
 * package's own bin through its npx cache, linking the checkout there and running the
 * link's `prepare` and `postinstall` first; those now leave an installed checkout as it is
 * (scripts/prepare.mjs says why), where they used to rebuild dist/ for half a minute.
 *
 * The clone is of this repository's HEAD. Its install is `npm ci --offline
 * --ignore-scripts` (from the npm cache the suite's own install filled) plus what the
 * skipped scripts would have built, copied from this checkout (dist/ and better-sqlite3's
 * native addon): the build itself is covered by `npm test`'s own `npm run build`, and a
 * second compile would cost CI minutes. npx then runs with a new HOME and an empty npm
 * cache of its own.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
let dir: string;
let clone: string;
let home: string;

/** The environment of a new user: no DDS_* settings, a new HOME, an empty npm cache. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("DDS_") && !k.startsWith("npm_") && !k.startsWith("VITEST")) env[k] = v;
  return { ...env, HOME: home, npm_config_cache: join(home, ".npm"), npm_config_update_notifier: "false", NO_COLOR: "1" };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ddsctl-clone-"));
  clone = join(dir, "ddsctl");
  home = join(dir, "home");
  execFileSync("git", ["clone", "--quiet", "--no-checkout", ROOT, clone]);
  execFileSync("git", ["-C", clone, "checkout", "--quiet", execFileSync("git", ["-C", ROOT, "rev-parse", "HEAD"], { encoding: "utf8" }).trim()]);
  execFileSync("npm", ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: clone, stdio: "pipe" });
  cpSync(join(ROOT, "dist"), join(clone, "dist"), { recursive: true });
  cpSync(join(ROOT, "node_modules/better-sqlite3/build"), join(clone, "node_modules/better-sqlite3/build"), { recursive: true });
}, 600_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the README's first run, in a fresh clone", () => {
  it("npx ddsctl demo runs the demo without building again", () => {
    const bundle = join(clone, "dist", "ddsctl.cjs");
    const before = statSync(bundle).mtimeMs;
    const r = spawnSync("npx", ["ddsctl", "demo"], { cwd: clone, env: userEnv(), encoding: "utf8", timeout: 300_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^haddad-purchase\s+active\s+resolved\s+9\s+1$/m);
    // Nothing was built: the bundle is the one the install made, and no `npm run build` ran.
    expect(statSync(bundle).mtimeMs).toBe(before);
    const logs = readdirSync(join(home, ".npm", "_logs")).map((f) => readFileSync(join(home, ".npm", "_logs", f), "utf8"));
    expect(logs.some((l) => /title npm exec ddsctl demo/.test(l))).toBe(true);
    expect(logs.some((l) => /info run ddsctl@\S+ prepare .* node scripts\/prepare\.mjs/.test(l))).toBe(true);
    expect(logs.filter((l) => /title npm run build/.test(l))).toEqual([]);
    // What npx keeps: a link to the clone, no copy of it.
    const npx = join(home, ".npm", "_npx");
    const [entry, ...others] = readdirSync(npx);
    expect(others).toEqual([]);
    const link = join(npx, entry, "node_modules", "ddsctl");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(realpathSync(resolve(join(npx, entry, "node_modules"), readlinkSync(link)))).toBe(realpathSync(clone));
    expect(readdirSync(join(npx, entry, "node_modules")).sort()).toEqual([".bin", ".package-lock.json", "ddsctl"]);
  });

  it("a checkout that was never built is built by npx all the same", () => {
    rmSync(join(clone, "dist"), { recursive: true, force: true });
    const r = spawnSync("node", [join(clone, "scripts", "prepare.mjs")], { cwd: clone, env: { ...userEnv(), npm_command: "exec", npm_execpath: "/nonexistent/npm-cli.js" }, encoding: "utf8" });
    // It tried to build (npm is not there in this test, so the build fails): it did not skip.
    expect(r.status).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(/nonexistent|Cannot find module/);
  });
});
