// Bundles the CLI into dist/ddsctl.js (+ chunks loaded on demand) so start-up reads a few
// files instead of ~470 modules. Run by `npm run build` and `prepare`, after tsc.
import { build } from "esbuild";
import { readdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const server = resolve(root, "src/server");

/**
 * Native addons and drivers with optional native parts stay external, and so does the
 * HTTP server (loaded from tsc's dist/server/ by `serve` only), so modules that locate
 * assets next to themselves keep working.
 */
const keepServerOut = {
  name: "keep-server-out",
  setup(b) {
    b.onResolve({ filter: /server\/index\.js$/ }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      if (!target.startsWith(server)) return undefined;
      return { path: "./server/index.js", external: true };
    });
  },
};

// Chunks sit beside the entry (so `./server/index.js` means the same from each); drop old ones.
const dist = resolve(root, "dist");
rmSync(resolve(dist, "chunks"), { recursive: true, force: true });
for (const f of readdirSync(dist, { withFileTypes: true }).filter((e) => e.isFile())) {
  if (/^[\w-]+-[A-Z0-9]{8}\.js$/.test(f.name) || f.name === "ddsctl.js") rmSync(resolve(dist, f.name));
}

/**
 * zod's namespace object re-exports every locale (~40 languages, a third of zod): only the
 * English messages are ever used, so the locale index becomes just those.
 */
const englishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onLoad({ filter: /zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";', loader: "js", resolveDir: undefined }));
  },
};

await build({
  entryPoints: { ddsctl: resolve(root, "src/cli/main.ts") },
  outdir: dist,
  chunkNames: "[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3", "pg", "pg-native", "@electric-sql/pglite", "postgres"],
  plugins: [keepServerOut, englishOnly],
  minify: process.env.DDS_BUNDLE_DEBUG !== "1",
  // CommonJS packages inside an ESM bundle still call require() for node built-ins.
  banner: { js: "import { createRequire as __ddsctlRequire } from 'node:module'; const require = __ddsctlRequire(import.meta.url);" },
  legalComments: "none",
  logLevel: "warning",
});
