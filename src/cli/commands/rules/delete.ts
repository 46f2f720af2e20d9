import { defineCommand } from "../../core/define-command.js";
import { refs, yesArgs } from "../../core/shared-args.js";
import { deleteNamed } from "../../common/delete-named.js";

/** `ddsctl rules delete <rule>`. */
export default defineCommand({
  command: "rules delete",
  description: "soft-delete a rule (it stops being evaluated; kept for audit)",
  examples: ["ddsctl rules delete min-loan", "ddsctl rules delete min-loan --yes"],
  args: { rule: refs.rule, ...yesArgs },
  writes: true,
  async handler(args, ctx) {
    await deleteNamed(ctx, "rule", args.rule, args.yes, (service, id) => service.deleteRule(id));
  },
});
