import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../src");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const rel = (path: string) => relative(SRC, path);
/** Source without comments (a comment may name a factory it does not call). */
const code = (path: string) => readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
const relativeImports = (path: string) => [...readFileSync(path, "utf8").matchAll(/^\s*(?:import|export)[^;]*?from\s+["'](\.[^"']+)["']/gm)].map((m) => m[1]);

/**
 * What assembles the application, and the one file allowed to call each outside its own
 * module: the store opened, the engines, tokens, the owner lock, the background work.
 */
const ASSEMBLY: Record<string, string[]> = {
  openDatabase: ["engine/app.ts"],
  // createLocalEngine opens a SQLite path itself when handed one (tests of the engine alone).
  openSqliteDatabase: ["engine/app.ts", "engine/local-engine.ts"],
  createLocalEngine: ["engine/app.ts"],
  createAuthenticator: ["engine/app.ts"],
  createProcessOwner: ["engine/app.ts"],
  startWorker: ["engine/app-background.ts"],
  createWebhookDispatcher: ["engine/app-background.ts"],
  sealClearSecrets: ["engine/app-background.ts"],
};

describe("one application at the centre", () => {
  const all = files(SRC);

  it("the server and the studio reach the engine only through its entry (src/engine/index.ts)", () => {
    const bad: string[] = [];
    for (const path of all.filter((p) => /^(server|studio)\//.test(rel(p)))) {
      for (const spec of relativeImports(path)) {
        const target = rel(join(path, "..", spec));
        if (target.startsWith("engine/") && target !== "engine/index.js") bad.push(`${rel(path)} → ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("only the application assembles: each factory is called outside its module by one file", () => {
    const bad: string[] = [];
    for (const path of all) {
      const text = code(path);
      for (const [factory, allowed] of Object.entries(ASSEMBLY)) {
        const defines = new RegExp(`export (async )?function ${factory}\\b`).test(text);
        if (!defines && new RegExp(`\\b${factory}\\(`).test(text) && !allowed.includes(rel(path))) bad.push(`${rel(path)} calls ${factory}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("the engine and the server read no environment of their own: they are given one (AppEnv)", () => {
    const bad = all.filter((p) => /^(engine|server)\//.test(rel(p)) && /\bprocess\.env\b/.test(code(p))).map(rel);
    expect(bad).toEqual([]);
  });

  it("dialect branches and SQL stay in the store adapters (src/engine/store/)", () => {
    const branch = /\.kind\s*[!=]==\s*"(sqlite|postgres)"|\bstore\.kind\b[^,}]*[?&|]/;
    const sql = /["'`]\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|CREATE|ALTER|DROP)\s/;
    const bad = all.filter((p) => !rel(p).startsWith("engine/store/") && (branch.test(code(p)) || sql.test(code(p)))).map(rel);
    expect(bad).toEqual([]);
  });

  it("finds what it checks (the rules above are not vacuous)", () => {
    expect(all.some((p) => rel(p) === "engine/index.ts")).toBe(true);
    expect(code(join(SRC, "engine/app.ts"))).toMatch(/\bopenDatabase\(/);
    expect(code(join(SRC, "engine/app-background.ts"))).toMatch(/\bstartWorker\(/);
  });
});
