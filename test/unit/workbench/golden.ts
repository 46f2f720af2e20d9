import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";

/**
 * Compares `text` with the golden file `golden/<name>.txt` beside this helper. With
 * UPDATE_GOLDEN=1 the file is (re)written instead; review the diff before committing.
 */
export function expectGolden(name: string, text: string, dir = join(import.meta.dirname, "golden")): void {
  const path = join(dir, `${name}.txt`);
  if (process.env.UPDATE_GOLDEN === "1") {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return;
  }
  expect(existsSync(path), `missing golden file ${path} (run with UPDATE_GOLDEN=1 to create it)`).toBe(true);
  expect(text).toBe(readFileSync(path, "utf8"));
}
