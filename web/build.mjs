// Builds the studio's page into dist/web with esbuild: one ES module entry, the rule
// editor (CodeMirror) split into its own chunk, and the route table as a small manifest
// (method, path, query kind) so the page carries no schemas. Run after tsc (it reads the
// compiled route table from dist/). Usage: node web/build.mjs [--metafile out.json]
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, "dist/web");
const { ROUTES } = await import(join(root, "dist/contract/routes.js"));

const manifest = ROUTES.map((r) => ({
  operation: r.operation,
  method: r.method,
  path: r.path,
  query: r.query,
  ...(r.writeOptions ? { writeOptions: true } : {}),
  ...(r.body ? { body: true } : {}),
}));

/** `import routes from "dds:routes"`: the manifest above. */
const routesPlugin = {
  name: "dds-routes",
  setup(b) {
    b.onResolve({ filter: /^dds:routes$/ }, () => ({ path: "routes", namespace: "dds" }));
    b.onLoad({ filter: /.*/, namespace: "dds" }, () => ({ contents: `export default ${JSON.stringify(manifest)};`, loader: "js" }));
  },
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { app: "web/src/main.tsx" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  outdir: out,
  entryNames: "[name]",
  chunkNames: "chunks/[name]-[hash]",
  assetNames: "chunks/[name]-[hash]",
  minify: true,
  legalComments: "none",
  jsx: "automatic",
  jsxImportSource: "preact",
  plugins: [routesPlugin],
  metafile: true,
  logLevel: "warning",
});
copyFileSync(join(root, "web/index.html"), join(out, "index.html"));
const i = process.argv.indexOf("--metafile");
if (i > 0) writeFileSync(process.argv[i + 1], JSON.stringify(result.metafile));
