import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

/**
 * The layers, bottom up, and what each may import (docs/architecture.md draws them).
 * Dependencies point one way: contract ← portable ← engine | client | server ← studio ← cli,
 * and the studio's page (web/) sees only contract and portable. A layer is a folder: `src/<name>/`,
 * or `web/` for the page.
 */
const LAYERS: Record<string, { may: string[]; nodeBuiltins: boolean }> = {
  util: { may: ["util"], nodeBuiltins: true },
  contract: { may: ["util", "contract"], nodeBuiltins: true },
  // Runs in Node and in the browser: the JSON Logic engine, the rule workbench's logic, the route client.
  portable: { may: ["contract", "portable"], nodeBuiltins: false },
  // The engine evaluates rules with portable's JSON Logic engine and document evaluation; portable never imports the engine.
  engine: { may: ["util", "contract", "portable", "engine"], nodeBuiltins: true },
  client: { may: ["util", "contract", "portable", "client"], nodeBuiltins: true },
  server: { may: ["util", "contract", "portable", "engine", "server"], nodeBuiltins: true },
  studio: { may: ["util", "contract", "portable", "engine", "client", "server", "studio"], nodeBuiltins: true },
  cli: { may: ["util", "contract", "portable", "engine", "client", "server", "studio", "cli"], nodeBuiltins: true },
  web: { may: ["contract", "portable", "web"], nodeBuiltins: false },
};

/** Packages only one corner of the code may import. */
const OWNED: [RegExp, (path: string) => boolean][] = [
  [/^better-sqlite3/, (p) => p.startsWith("src/engine/store/sqlite/")],
  [/^postgres$/, (p) => p.startsWith("src/engine/store/postgres/")],
  [/^undici$/, (p) => layerOf(p) === "client"],
  [/^(prom-client|pino)$/, (p) => layerOf(p) === "server"],
  [/^(commander|@inquirer\/prompts|chalk|cli-table3|cli-progress)$/, (p) => layerOf(p) === "cli"],
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(path) ? [path] : [];
  });
}

/** Every module specifier a file names: `import … from`, `export … from`, `import "x"` and `import("x")`. */
const imports = (path: string) =>
  [...readFileSync(join(ROOT, path), "utf8").matchAll(/(?:^\s*(?:import|export)\b[^;]*?\bfrom\s*|^\s*import\s*|\bimport\(\s*)["']([^"']+)["']/gm)].map((m) => m[1]);

/** `src/engine/x.ts` → engine, `web/src/x.tsx` → web. */
function layerOf(path: string): string {
  const [top, name] = path.split("/");
  return top === "web" ? "web" : name;
}

/** The repository path a relative specifier names (`.js` in a specifier names the `.ts` or `.tsx` source). */
function target(from: string, spec: string): string {
  const path = join(dirname(from), spec);
  for (const candidate of [path.replace(/\.js$/, ".ts"), path.replace(/\.js$/, ".tsx"), path]) {
    try {
      if (statSync(join(ROOT, candidate)).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return path;
}

const isNodeBuiltin = (spec: string) => spec.startsWith("node:") || builtinModules.includes(spec.split("/")[0]);

/** Every import that breaks the layer rules, as `from → spec`. */
function layerViolations(all: string[]): { bad: string[] } {
  const bad: string[] = [];
  for (const path of all) {
    const rule = LAYERS[layerOf(path)];
    if (!rule) {
      bad.push(`${path} is in no layer`);
      continue;
    }
    for (const spec of imports(path)) {
      if (!spec.startsWith(".")) {
        if (!rule.nodeBuiltins && isNodeBuiltin(spec)) bad.push(`${path} → ${spec} (a Node built-in)`);
        continue;
      }
      const to = target(path, spec);
      if (!rule.may.includes(layerOf(to))) bad.push(`${path} → ${spec}`);
    }
  }
  return { bad };
}

/** The files reachable from `start` by relative imports. */
function reachable(start: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...start];
  while (todo.length > 0) {
    const path = todo.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const spec of imports(path)) if (spec.startsWith(".")) todo.push(target(path, spec));
  }
  return seen;
}

describe("layering", () => {
  const all = [...files(join(ROOT, "src")), ...files(join(ROOT, "web/src"))].map((p) => relative(ROOT, p));

  it("every layer imports only the layers it may (src/ and web/)", () => {
    expect(layerViolations(all).bad).toEqual([]);
  });

  it("nothing the browser loads reaches a Node built-in, through any layer", () => {
    const browser = reachable(all.filter((p) => !LAYERS[layerOf(p)]?.nodeBuiltins));
    const bad = [...browser].flatMap((path) => imports(path).filter(isNodeBuiltin).map((spec) => `${path} → ${spec}`));
    expect(bad).toEqual([]);
  });

  it("store, HTTP client and terminal packages stay in their corner", () => {
    const bad: string[] = [];
    for (const path of all) {
      for (const spec of imports(path)) {
        for (const [pkg, ok] of OWNED) if (pkg.test(spec) && !ok(path)) bad.push(`${path} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("finds the source trees (the checks above are not vacuous)", () => {
    const count = (layer: string) => all.filter((p) => layerOf(p) === layer).length;
    expect(count("engine")).toBeGreaterThan(100);
    expect(count("portable")).toBeGreaterThan(30);
    expect(count("web")).toBeGreaterThan(30);
    expect(all.some((p) => imports(p).includes("better-sqlite3"))).toBe(true);
    const importsPortable = (layer: string) => all.some((p) => layerOf(p) === layer && imports(p).some((s) => s.includes("/portable/")));
    expect(importsPortable("web") && importsPortable("engine") && importsPortable("cli")).toBe(true);
  });
});
