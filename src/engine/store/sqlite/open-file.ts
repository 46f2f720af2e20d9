import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

let addon: string | null | undefined;

/**
 * better-sqlite3's compiled addon, found once by its place in the package; null when it is
 * elsewhere (then the package's own lookup, the `bindings` module, finds it). Naming it
 * skips that lookup, which tries a dozen paths on every start-up.
 */
function addonPath(): string | null {
  if (addon !== undefined) return addon;
  try {
    const pkg = createRequire(import.meta.url).resolve("better-sqlite3/package.json");
    const path = join(dirname(pkg), "build", "Release", "better_sqlite3.node");
    addon = existsSync(path) ? path : null;
  } catch {
    addon = null;
  }
  return addon;
}

/** Opens a SQLite file with better-sqlite3 (every connection ddsctl makes goes through here). */
export function openSqliteFile(path: string, options: Database.Options = {}): Database.Database {
  const nativeBinding = addonPath();
  return new Database(path, nativeBinding === null ? options : { ...options, nativeBinding });
}
