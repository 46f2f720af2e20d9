// Applies patches/ to the installed dependencies (patch-package), in a checkout of this
// repository: today one patch, to the `postgres` driver (docs/deployment.md, "When the
// database goes away", says why). A published ddsctl carries its patched driver inside
// its own tarball (bundleDependencies), so where patch-package is not installed (ddsctl
// installed as a dependency, without its devDependencies) there is nothing to do.
//
// Under npx in a checkout (see prepare.mjs) the patches are in place already: nothing to do.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const bin = join(root, "node_modules", "patch-package", "index.js");
if (process.env.npm_command !== "exec" && existsSync(join(root, "patches")) && existsSync(bin)) {
  const r = spawnSync(process.execPath, [bin, "--error-on-fail"], { cwd: root, stdio: "inherit" });
  process.exit(r.status ?? 1);
}
