/**
 * What an install gets: `engines` no looser than what the runtime dependencies need, and
 * every package the shipped code loads is a runtime dependency, while the ones only tests
 * use (json-logic-js, the property tests' oracle) are not, and the bundle never loads them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
interface Pkg {
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
const pkg = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Pkg;
const ours = pkg(ROOT);

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path, ext) : ext.test(path) ? [path] : [];
  });
}

/** `>=20.18.1` → [20, 18, 1]. */
function floor(range: string | undefined): number[] {
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range?.trim() ?? "");
  if (!m) throw new Error(`engines range "${range}" is not of the form >=X.Y.Z`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}
const atLeast = (a: number[], b: number[]) => a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] >= b[2];

/** The packages a source file loads at run time (type-only imports load nothing). */
function packagesOf(path: string): string[] {
  const text = readFileSync(path, "utf8");
  const specs = [
    ...[...text.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^;]*?from\s+["']([^"']+)["']/gm)].map((m) => m[1]),
    ...[...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]),
  ];
  return specs.filter((s) => !s.startsWith(".") && !s.startsWith("node:")).map((s) => (s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]));
}

describe("packaging", () => {
  it("engines.node is at least what every runtime dependency's engines asks", () => {
    const mine = floor(ours.engines?.node);
    for (const name of Object.keys(ours.dependencies ?? {})) {
      const theirs = pkg(join(ROOT, "node_modules", name)).engines?.node;
      // Only the `>=X.Y.Z` ranges say a floor; others (`*`, `>=8 || …`) ask nothing of Node 20.
      if (!theirs || !/^>=\s*\d+(\.\d+){0,2}$/.test(theirs.trim())) continue;
      expect(atLeast(mine, floor(theirs)), `${name} needs node ${theirs}, engines says ${ours.engines?.node}`).toBe(true);
    }
    expect(mine).toEqual([20, 18, 1]);
  });

  it("json-logic-js is a devDependency (the tests' oracle), not a runtime one", () => {
    expect(ours.dependencies).not.toHaveProperty("json-logic-js");
    expect(ours.devDependencies).toHaveProperty("json-logic-js");
  });

  it("every package src/ loads is a runtime dependency", () => {
    const runtime = new Set(Object.keys(ours.dependencies ?? {}));
    const missing: string[] = [];
    const sources = files(join(ROOT, "src"), /\.ts$/);
    expect(sources.length).toBeGreaterThan(100);
    for (const path of sources) for (const p of packagesOf(path)) if (!runtime.has(p)) missing.push(`${relative(ROOT, path)} loads ${p}`);
    expect(missing).toEqual([]);
  });

  it("the built bundle and server never load json-logic-js", () => {
    const built = [join(ROOT, "dist/ddsctl.cjs"), ...files(join(ROOT, "dist"), /\.(c?js)$/).filter((f) => !f.includes("/web/"))];
    expect(existsSync(built[0]), "run npm run build first").toBe(true);
    const loaders = built.filter((f) => /(require\(|import\(|from\s*)["']json-logic-js["']/.test(readFileSync(f, "utf8")));
    expect(loaders.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
