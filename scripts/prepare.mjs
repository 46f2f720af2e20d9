// The `prepare` step: builds dist/ (`npm run build`) when a checkout of this repository is
// installed (`npm install`, `npm ci`). npx runs it too, and would rebuild for nothing: in a
// checkout, `npx ddsctl …` finds ddsctl's own bin in package.json, and npm (libnpmexec)
// then links the checkout into its npx cache and runs the link's `prepare` and
// `postinstall` before the command, every first time: half a minute of tsc and esbuild with
// no output. Under npx (`npm_command` is `exec`), a checkout already built is left as it is.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
if (process.env.npm_command === "exec" && existsSync(join(root, "dist", "ddsctl.cjs"))) process.exit(0);
// npm_execpath is the npm running this script; without it (run by hand), npm on PATH.
const npm = process.env.npm_execpath;
const r = npm ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" }) : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
process.exit(r.status ?? 1);
