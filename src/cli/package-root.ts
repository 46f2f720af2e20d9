import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/**
 * The installed package's root (where package.json and fixtures/ are), found by walking up
 * from this module: the same answer from src/ under tests, dist/ and the bundle.
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("ddsctl: cannot find its package.json");
    dir = up;
  }
  return (root = dir);
}

/** The package version (from package.json). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}
