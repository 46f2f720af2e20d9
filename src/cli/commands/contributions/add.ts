import { errors } from "../../../contract/errors.js";
import type { Contribution } from "../../../contract/schemas/index.js";
import { readBody } from "../../document-input.js";
import { defineCommand, type CommandContext } from "../../core/define-command.js";
import { fileArg, outputArgs, waitArgs } from "../../core/shared-args.js";
import { bulkExitCode, renderBulk, succeededData } from "../../render/bulk.js";
import { renderContribution } from "../../render/evidence.js";
import { contextIdsOf, drainPipeline } from "../../common/drain.js";
import { evidenceNeed, withStatusCommands } from "../../common/lifecycle-hints.js";
import { bulkItemsOf } from "../records/bulk-file.js";
import { contributionArgs, contributionFlagValues, requireContributionFlags, withDefaults } from "./contribution-flags.js";

/** `ddsctl contributions add`: one contribution, or a bulk file of up to 100. */
export default defineCommand({
  command: "contributions add",
  description: "add evidence: one contribution, or many from a file ({items} or an array; up to 100)",
  examples: [
    "ddsctl contributions add --context case-42 --model Loan --source-id doc-17 --source-type document --data amount=250000 --confidence amount=0.9",
    "ddsctl contributions add -f contribution.json --json",
    "ddsctl contributions add -f batch.json --context case-42   # bulk; exit 3 when some items fail",
  ],
  args: { ...fileArg("the POST /contributions body, or a bulk body,"), ...contributionArgs, ...waitArgs, ...outputArgs },
  writes: true,
  async handler(args, ctx) {
    if (!args.file) requireContributionFlags(args);
    const raw = args.file ? await readBody(ctx.io, args.file) : {};
    const items = bulkItemsOf(raw);
    if (!items && (raw === null || typeof raw !== "object")) throw errors.usage(`the body in ${args.file === "-" ? "stdin" : args.file} must be a JSON object or a bulk body`);
    const service = await ctx.service();
    const values = await contributionFlagValues(service, args);
    if (items) return addBulk(ctx, args, withDefaults(items, values));
    const base = raw as Record<string, unknown>;
    const body: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(values)) if (v !== undefined) body[k] = v;
    // Pairs add to the file's data and confidences rather than replacing them.
    if (values.data) body.data = { ...(base.data as object | undefined), ...values.data };
    if (values.fieldConfidences) body.fieldConfidences = { ...(base.fieldConfidences as object | undefined), ...values.fieldConfidences };
    // A context named by --context that is not active: the error says so in the user's words, with the way back.
    const contextId = values.contextId;
    const contribution =
      args.context !== undefined && typeof contextId === "string"
        ? await withStatusCommands(evidenceNeed(args.context, contextId, () => service.getContext(contextId)), () => service.createContribution(body as never))
        : await service.createContribution(body as never);
    await renderContribution(ctx.out, contribution);
    await drainPipeline(ctx, args, [contribution.contextId]);
  },
});

async function addBulk(ctx: CommandContext, args: { wait: boolean }, items: unknown[]): Promise<void> {
  const res = await (await ctx.service()).bulkCreateContributions({ items });
  await renderBulk(ctx.out, res, (data) => `record ${(data as Contribution | undefined)?.recordId ?? "?"}`);
  ctx.setExitCode(bulkExitCode(res.summary));
  await drainPipeline(ctx, args, contextIdsOf(succeededData(res)));
}
