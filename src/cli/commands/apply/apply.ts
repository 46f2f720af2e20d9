import { errors, ExitCode, isDdsError } from "../../../contract/errors.js";
import { readStdin } from "../../document-input.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs, waitArgs } from "../../core/shared-args.js";
import { drainPipeline } from "../../common/drain.js";

/** `ddsctl apply -f <file|dir>`: declarative create-or-update by name. */
export default defineCommand({
  command: "apply",
  description: "create or update models, rules and contexts (with their evidence) by name from JSON/YAML documents; idempotent",
  examples: [
    "ddsctl apply -f fixtures/mortgage/",
    "ddsctl apply -f rules/ --dry-run",
    "ddsctl apply -f fixtures/mortgage/ --diff   # exit 0: no changes, 1: changes, 2: error",
    "cat model.yaml | ddsctl apply -f - --json",
  ],
  args: {
    file: { type: "string", short: "f", required: true, placeholder: "path|-", complete: "file", description: "a document file, a directory (every *.json, *.yaml, *.yml below it) or - for stdin" },
    dryRun: { type: "boolean", description: "print the plan (created/updated/unchanged per document) without writing" },
    diff: { type: "boolean", description: "print what would change and exit 0 (no changes), 1 (changes) or 2 (error), like kubectl diff" },
    ...waitArgs,
    ...reportArgs,
  },
  writes: true,
  readOnlyWhen: (args) => args.dryRun || args.diff,
  async handler(args, ctx) {
    const { out } = ctx;
    const flags = args;
    const diff = args.diff;
    try {
      // Lazy: the declarative documents build zod schemas and load yaml; every command module loads at start-up (registry.ts).
      const lib = await import("../../declarative/index.js");
      const file = args.file;
      const docs = file === "-" ? lib.loadDocumentsFromText(await readStdin(ctx.io)) : lib.loadDocuments(file);
      const service = await ctx.service();
      const result = await lib.applyDocuments(service, docs, { dryRun: diff || flags.dryRun });
      if (diff) {
        if (out.options.json) out.json(result);
        else for (const line of lib.diffLines(result)) out.line(line);
        if (!out.options.json && !result.changed) out.info("no changes");
        ctx.setExitCode(result.changed ? ExitCode.failure : ExitCode.ok);
        return;
      }
      if (out.options.json) out.json(result);
      else lib.renderApply(out, result);
      if (!result.dryRun && result.changed) {
        // A model or rule change makes every affected context stale, not just the documents'.
        const onlyContexts = result.items.every((i) => i.kind === "Context" || i.action === "unchanged");
        await drainPipeline(ctx, flags, onlyContexts ? result.touchedContexts : undefined);
      }
      if (result.failures.length > 0) {
        const first = result.failures[0];
        const more = result.failures.length > 1 ? ` (and ${result.failures.length - 1} more)` : "";
        throw errors.validation(`${result.failures.length} contribution(s) were refused: ${first.path}: ${first.message}${more}`, result.failures);
      }
    } catch (err) {
      // kubectl diff's convention: 0 and 1 mean "no changes" and "changes", so errors are 2.
      if (!diff || !isDdsError(err)) throw err;
      out.error(err.toProblem());
      ctx.setExitCode(ExitCode.usage);
    }
  },
});
