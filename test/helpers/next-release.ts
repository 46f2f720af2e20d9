import { appendFileSync, chmodSync, cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

/** The schema change the stand-in next release brings: one more shared migration. */
export const NEXT_MIGRATION = "next-release-note";

/**
 * A ddsctl that plays the next release, for the tests of an upgrade across releases: this
 * checkout's build (tsc's dist/, run unbundled) with a version one patch above and one
 * more schema migration (a nullable column, `contexts.next_release_note`, the kind of
 * additive change ddsctl's migrations make). To it this checkout is the old release, so
 * what the old nodes do is what this checkout's code does. Made under `dir` (which must be
 * readable by whoever runs it); returns the path of its executable.
 *
 * The migration is appended to tsc's output of src/engine/store/schema/changes.ts, where
 * both stores' migration lists read it; `npm run build` must have run.
 */
export function makeNextRelease(dir: string): { bin: string; version: string } {
  const root = join(dir, "ddsctl-next");
  mkdirSync(root, { recursive: true });
  cpSync(join(ROOT, "dist"), join(root, "dist"), { recursive: true, filter: (src) => !src.endsWith(".cache") });
  symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
  const version = pkg.version.replace(/(\d+)$/, (n) => String(Number(n) + 1));
  writeFileSync(join(root, "package.json"), JSON.stringify({ ...pkg, version }, null, 2));
  const column = "ALTER TABLE contexts ADD COLUMN next_release_note TEXT;";
  appendFileSync(
    join(root, "dist/engine/store/schema/changes.js"),
    `\n// The stand-in next release's schema change (test/helpers/next-release.ts).\nSHARED_MIGRATIONS.push(${JSON.stringify({ name: NEXT_MIGRATION, steps: [{ sql: { sqlite: column, postgres: column } }] })});\n`,
  );
  writeFileSync(join(root, "main.mjs"), 'import { main } from "./dist/cli/main.js";\nprocess.exitCode = await main(process.argv.slice(2));\n');
  const bin = join(root, "ddsctl");
  writeFileSync(bin, `#!/bin/sh\nexec node ${JSON.stringify(join(root, "main.mjs"))} "$@"\n`);
  chmodSync(bin, 0o755);
  return { bin, version };
}
