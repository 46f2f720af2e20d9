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

const imports = (path: string) => [...readFileSync(path, "utf8").matchAll(/^\s*(?:import|export)[^;]*?from\s+["']([^"']+)["']/gm)].map((m) => m[1]);
const layer = (path: string) => relative(SRC, path).split("/")[0];

/** Which layers each layer may import (the README's "Layout": dependencies point one way). */
const ALLOWED: Record<string, string[]> = {
  util: ["util"],
  contract: ["util", "contract"],
  engine: ["util", "contract", "engine"],
  client: ["util", "contract", "client"],
  server: ["util", "contract", "engine", "server"],
  studio: ["util", "contract", "engine", "client", "server", "studio"],
  cli: ["util", "contract", "engine", "client", "server", "studio", "cli"],
};

/** Packages only one corner of the code may import. */
const OWNED: [RegExp, (path: string) => boolean][] = [
  [/^better-sqlite3/, (p) => relative(SRC, p).startsWith("engine/store/sqlite/")],
  [/^postgres$/, (p) => relative(SRC, p).startsWith("engine/store/postgres/")],
  [/^undici$/, (p) => layer(p) === "client"],
  [/^(prom-client|pino)$/, (p) => layer(p) === "server"],
  [/^(commander|@inquirer\/prompts|chalk|cli-table3|cli-progress)$/, (p) => layer(p) === "cli"],
];

describe("layering", () => {
  const all = files(SRC);
  it("every layer imports only the layers below it", () => {
    const bad: string[] = [];
    for (const path of all) {
      for (const spec of imports(path).filter((s) => s.startsWith("."))) {
        const target = relative(SRC, join(path, "..", spec)).split("/")[0];
        if (!ALLOWED[layer(path)]?.includes(target)) bad.push(`${relative(SRC, path)} → ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("store, HTTP client and terminal packages stay in their corner", () => {
    const bad: string[] = [];
    for (const path of all) {
      for (const spec of imports(path)) {
        for (const [pkg, ok] of OWNED) if (pkg.test(spec) && !ok(path)) bad.push(`${relative(SRC, path)} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("finds the source tree (the checks above are not vacuous)", () => {
    expect(all.length).toBeGreaterThan(100);
    expect(all.some((p) => imports(p).includes("better-sqlite3"))).toBe(true);
  });
});
