import { defineCommand } from "../../core/define-command.js";
import { outputArgs } from "../../core/shared-args.js";
import { packageVersion } from "../../package-root.js";

/** `ddsctl version`: ddsctl's version with Node's and the platform (as `gh version`). */
export default defineCommand({
  command: "version",
  description: "print ddsctl's version, with Node's and the platform (--version prints the bare number)",
  examples: ["ddsctl version", "ddsctl version --json", "ddsctl version --jq .node"],
  args: { ...outputArgs },
  async handler(_args, ctx) {
    const body = { version: packageVersion(), node: process.versions.node, platform: `${process.platform}-${process.arch}` };
    if (ctx.out.options.json) return ctx.out.json(body);
    ctx.out.line(`ddsctl ${body.version} (node ${body.node}, ${body.platform})`);
  },
});
