// Bundles the CLI into one CommonJS file, dist/ddsctl.cjs, that bin/ddsctl compiles with a
// V8 code cache (dist/ddsctl.cjs.cache): start-up then reads one file and skips most of
// the parsing, instead of resolving and compiling ~470 modules. Run by `npm run build`
// (and so by `prepare`), after tsc.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const dist = resolve(root, "dist");
const outside = [resolve(root, "src/server"), resolve(root, "src/studio")];
const outfile = resolve(dist, "ddsctl.cjs");

/**
 * The HTTP server and the studio stay out of the bundle: `serve` and `studio` load them
 * from tsc's dist/ (src/cli/load-external.ts), so their modules find their assets next to
 * themselves (import.meta.url).
 */
const keepServerOut = {
  name: "keep-server-out",
  setup(b) {
    b.onResolve({ filter: /(server|studio)\/index\.js$/ }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      const dir = outside.find((d) => target.startsWith(d));
      if (!dir) return undefined;
      return { path: `./${dir.split("/").pop()}/index.js`, external: true };
    });
  },
};

/**
 * zod's namespace object re-exports every locale (~40 languages, a third of zod): only the
 * English messages are ever used, so the locale index becomes just those.
 */
const englishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onLoad({ filter: /zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";', loader: "js" }));
  },
};

/**
 * commander requires node:child_process at load, for external subcommands (`git-foo`
 * style) that ddsctl never has; loading it (with net and dgram) costs ~4 ms of every start.
 * The bundle gives commander a stand-in that requires it on first use.
 */
const lazyChildProcess = {
  name: "commander-lazy-child-process",
  setup(b) {
    b.onLoad({ filter: /commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = readFileSync(args.path, "utf8");
      const eager = "const childProcess = require('node:child_process');";
      if (!source.includes(eager)) throw new Error("bundle: commander no longer requires node:child_process as expected; update scripts/bundle.mjs");
      const lazy = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
      return { contents: source.replace(eager, lazy), loader: "js" };
    });
  },
};

/**
 * node:crypto takes ~4 ms to load, and a command that only reads never calls it (ids,
 * hashes and ciphers are for writes, tokens and secrets). Inside the bundle it is a module
 * of getters, one per export (listed from this Node's crypto at build time), that loads
 * the real one on first use.
 */
const lazyCrypto = {
  name: "lazy-node-crypto",
  setup(b) {
    b.onResolve({ filter: /^node:crypto$/ }, () => ({ path: "node:crypto", namespace: "lazy-crypto" }));
    b.onLoad({ filter: /.*/, namespace: "lazy-crypto" }, async () => {
      const names = Object.keys(await import("node:crypto")).filter((n) => n !== "default");
      const getters = names.map((n) => `  ${JSON.stringify(n)}: { enumerable: true, get: () => load()[${JSON.stringify(n)}] },`).join("\n");
      return { contents: `let crypto;\nconst load = () => (crypto ??= require("crypto"));\nObject.defineProperties(module.exports, {\n${getters}\n});\n`, loader: "js" };
    });
  },
};

/**
 * Large packages few commands need (the remote client's HTTP pool, the prompts, YAML, jq) go
 * into bundles of their own, required when first used, so a local read loads and
 * deserialises a third of the code. They keep no state shared with the main bundle.
 */
const SIDE = { undici: "ddsctl-undici", "@inquirer/prompts": "ddsctl-prompts", yaml: "ddsctl-yaml", "@michaelhomer/jqjs": "ddsctl-jq" };
const sideBundles = {
  name: "side-bundles",
  setup(b) {
    b.onResolve({ filter: /^(undici|@inquirer\/prompts|yaml|@michaelhomer\/jqjs)$/ }, (args) => ({ path: `./${SIDE[args.path]}.cjs`, external: true }));
  },
};

const common = {
  write: false,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  minify: process.env.DDS_BUNDLE_DEBUG !== "1",
  legalComments: "none",
  logLevel: "warning",
};
const sides = await build({
  ...common,
  entryPoints: Object.fromEntries(Object.entries(SIDE).map(([pkg, name]) => [name, pkg])),
  outdir: dist,
  outExtension: { ".js": ".cjs" },
});

const result = await build({
  ...common,
  entryPoints: [resolve(root, "src/cli/main.ts")],
  outfile,
  // Database drivers load from node_modules as installed. better-sqlite3's JavaScript is
  // bundled (and so code-cached: loading it from node_modules took ~7 ms of every start);
  // its compiled addon is required from the package by path (src/engine/store/sqlite/open-file.ts).
  external: ["pg", "pg-native", "postgres", "@electric-sql/pglite"],
  plugins: [keepServerOut, englishOnly, lazyChildProcess, lazyCrypto, sideBundles],
  // Code run from a V8 code cache cannot use import(): dynamic imports of packages become
  // require() (the server, an ES module, goes through the bin's loader: src/cli/load-external.ts).
  supported: { "dynamic-import": false },
  // The bundle is CommonJS: give modules that locate files their own URL back.
  define: { "import.meta.url": "__ddsctlUrl" },
  banner: { js: "const __ddsctlUrl = require('node:url').pathToFileURL(__filename).href;" },
});

/** Writes a file only when it changed, atomically; true when it changed. */
function replace(path, contents) {
  if (existsSync(path) && Buffer.compare(readFileSync(path), contents) === 0) return false;
  writeFileSync(`${path}.${process.pid}`, contents);
  renameSync(`${path}.${process.pid}`, path);
  return true;
}
for (const f of sides.outputFiles) replace(f.path, f.contents);

// Replaced only when it changed, and atomically: a test suite running beside this build
// never reads half a bundle (nor loses a cache that still fits).
const code = result.outputFiles[0].contents;
const same = existsSync(outfile) && Buffer.compare(readFileSync(outfile), code) === 0;
if (!same) {
  writeFileSync(`${outfile}.${process.pid}`, code);
  renameSync(`${outfile}.${process.pid}`, outfile);
  rmSync(`${outfile}.cache`, { force: true });
}
if (same && existsSync(`${outfile}.cache`)) process.exit(0);

// A few typical local commands fill the code cache with what most commands run (parser,
// output, engine reads and writes); each run adds the functions it compiled.
const dir = mkdtempSync(join(tmpdir(), "ddsctl-warm-"));
try {
  const env = { ...process.env, XDG_CONFIG_HOME: join(dir, "config"), DDS_DB: join(dir, "warm.db"), NO_COLOR: "1", DDSCTL_WRITE_CODE_CACHE: "1" };
  const model = JSON.stringify({ name: "Warm", fields: [{ name: "amount", type: "number" }] });
  const runs = [
    [["--help"]],
    [["models", "create", "-f", "-", "--quiet"], model],
    [["models", "get", "Warm", "--json"]],
    [["contexts", "create", "--name", "warm-up", "--quiet"]],
    [["contexts", "list", "--json"]],
    [["contexts", "list"]],
  ];
  for (const [args, input] of runs) {
    const warm = spawnSync(process.execPath, [resolve(root, "bin/ddsctl"), ...args], { env, input, stdio: ["pipe", "ignore", "ignore"] });
    if (warm.status !== 0) console.warn(`bundle: warm-up run "ddsctl ${args.join(" ")}" failed; the code cache is made on first use instead`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
