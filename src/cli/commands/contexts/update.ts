import { errors } from "../../../contract/errors.js";
import { bodyFrom, parsePairs } from "../../body.js";
import { defineCommand } from "../../command.js";
import { renderContext } from "../../render/contexts.js";

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** `ddsctl contexts update <contextId>`. */
export default defineCommand({
  path: ["contexts", "update"],
  description: "change a context's name, type or metadata (status has its own command)",
  examples: ["ddsctl contexts update 0193a0e2-7f1c-7c4e-9a57-2f5a1d3b9e10 --type remortgage", `echo '{"metadata":{"region":"east"}}' | ddsctl contexts update <id> -f -`],
  configure: (cmd) =>
    cmd
      .argument("<contextId>")
      .option("-f, --file <path|->", "the PATCH /contexts/{id} body as JSON (- reads stdin)")
      .option("--name <name>", "new name")
      .option("--type <type>", "new type")
      .option("--metadata <key=value>", "replace metadata with these pairs (repeatable)", collect),
  async run(ctx, [id], flags) {
    const body = await bodyFrom(flags.file as string | undefined, {
      name: flags.name,
      type: flags.type,
      metadata: parsePairs(flags.metadata as string[] | undefined, "--metadata"),
    });
    if (Object.keys(body).length === 0) throw errors.usage("nothing to change: give -f <file|-> or --name/--type/--metadata");
    renderContext(ctx.out, await (await ctx.service()).updateContext(id, body));
  },
});
