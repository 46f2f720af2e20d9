import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

let addon: string | object | undefined;

/**
 * better-sqlite3's compiled addon, found once: by its usual place in the package, else by
 * the package's own lookup (the `bindings` module) run from the package's folder. Naming
 * it skips that lookup, which tries a dozen paths on every start-up, and works from the
 * CLI's bundle too, where `bindings` would search from the bundle's folder instead.
 */
function addonOf(): string | object {
  if (addon !== undefined) return addon;
  const pkg = createRequire(import.meta.url).resolve("better-sqlite3/package.json");
  const built = join(dirname(pkg), "build", "Release", "better_sqlite3.node");
  if (existsSync(built)) return (addon = built);
  const bindings = createRequire(pkg)("bindings") as (options: { bindings: string; module_root: string }) => object;
  return (addon = bindings({ bindings: "better_sqlite3.node", module_root: dirname(pkg) }));
}

/** The addon's file, when it was found as one (a thread of its own can then load it too). */
export function addonFile(): string | undefined {
  const found = addonOf();
  return typeof found === "string" ? found : undefined;
}

/** Opens a SQLite file with better-sqlite3 (every connection ddsctl makes goes through here). */
export function openSqliteFile(path: string, options: Database.Options = {}): Database.Database {
  // better-sqlite3 takes the loaded addon object too (lib/database.js); its types say string only.
  return new Database(path, { ...options, nativeBinding: addonOf() as string });
}
