import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const CLI = join(ROOT, "src/cli");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/**
 * Every `await import()` in the CLI without a `// Lazy: <why>` comment on the line above (a
 * run of such imports on consecutive lines shares one). The registry loads a command's file
 * with its group's (`contexts list` loads every `contexts` command) and the top-level
 * commands' for `--help`, so an import is static unless start-up has a reason not to pay for
 * it. (The registry's own `() => import()` loaders are that reason, stated once in registry.ts.)
 */
function unexplained(): { file: string; spec: string }[] {
  const found: { file: string; spec: string }[] = [];
  for (const path of files(CLI)) {
    const lines = readFileSync(path, "utf8").split("\n");
    lines.forEach((line, i) => {
      const m = /await import\(\s*["']([^"']+)["']/.exec(line);
      if (!m) return;
      let above = i - 1;
      while (above >= 0 && /await import\(/.test(lines[above])) above--;
      if (above < 0 || !/^\s*\/\/ Lazy: \S/.test(lines[above])) found.push({ file: relative(ROOT, path), spec: m[1] });
    });
  }
  return found;
}

describe("dynamic imports in the CLI", () => {
  const found = unexplained();

  it("each says why start-up needs it lazy", () => {
    expect(found).toEqual([]);
  });

  it("finds the dynamic imports (the check is not vacuous)", () => {
    const all = files(CLI).flatMap((p) => [...readFileSync(p, "utf8").matchAll(/await import\(/g)]);
    expect(all.length).toBeGreaterThan(10);
  });
});
