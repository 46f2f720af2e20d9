import { bodyFrom, parsePairs } from "../../body.js";
import { defineCommand } from "../../command.js";
import { renderContext } from "../../render/contexts.js";

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** `ddsctl contexts create`. */
export default defineCommand({
  path: ["contexts", "create"],
  description: "create a decisioning context (status active, freshness resolved)",
  examples: ["ddsctl contexts create --name case-42 --type mortgage --metadata region=west", `echo '{"name":"case-42"}' | ddsctl contexts create -f - --json`],
  configure: (cmd) =>
    cmd
      .option("-f, --file <path|->", "the POST /contexts body as JSON (- reads stdin)")
      .option("--name <name>", "human-readable name")
      .option("--type <type>", "free-form classification")
      .option("--metadata <key=value>", "metadata pair (repeatable; JSON values allowed)", collect),
  async run(ctx, _args, flags) {
    const body = await bodyFrom(flags.file as string | undefined, {
      name: flags.name,
      type: flags.type,
      metadata: parsePairs(flags.metadata as string[] | undefined, "--metadata"),
    });
    renderContext(ctx.out, await (await ctx.service()).createContext(body));
  },
});
