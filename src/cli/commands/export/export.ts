import { errors } from "../../../contract/errors.js";
import type { Context } from "../../../contract/schemas/index.js";
import type { DdsService } from "../../../contract/service.js";
import { defineCommand } from "../../core/define-command.js";
import { refCache } from "../../../portable/names/resolve-ref.js";
import { formatArgs, OUTPUT_FORMATS, type OutputFormat } from "../../core/shared-args.js";
import { NdjsonSink } from "../../ndjson/ndjson-sink.js";
import { everyItem, runExport, type ExportCounts } from "./export-run.js";

/** The contexts to export: every one with --all, else the given names or ids (all checked first). */
async function contextsToExport(service: DdsService, refs: string[], all: boolean): Promise<AsyncIterable<Context>> {
  if (all) return everyItem((q) => service.listContexts(q));
  const found: Context[] = [];
  const contextId = refCache(service, "context");
  // Fetch every context before writing a line: a typo fails fast (exit 4), not halfway.
  for (const ref of refs) found.push(await service.getContext(await contextId(ref)));
  return (async function* () {
    yield* found;
  })();
}

/** `ddsctl export <context...>`: a case (or every case) as NDJSON another database can load. */
export default defineCommand({
  command: "export",
  description: "export contexts as NDJSON: models, rules, contexts, contributions (re-importable), records and evaluations",
  examples: [
    "ddsctl export case-42 > case.ndjson",
    "ddsctl export --all --output-file everything.ndjson",
    "ddsctl --remote https://dds.example/v1 export <contextId> -O case.ndjson -o json",
    "ddsctl --local replay.db import contributions case.ndjson --create-contexts   # its evidence, into another database",
  ],
  args: {
    contexts: { type: "strings", positional: true, placeholder: "context", complete: "context", description: "the contexts to export (names or ids)" },
    all: { type: "boolean", description: "export every context" },
    outputFile: { type: "string", short: "O", placeholder: "file", complete: "file", description: "write to this file (written whole, then moved into place) instead of stdout" },
    // -o is the output format here too: the export itself is NDJSON, its counts JSON.
    ...formatArgs(["json"], "json: print the counts of an export to --output-file as JSON", (value) =>
      OUTPUT_FORMATS.includes(value as OutputFormat)
        ? `export writes NDJSON: ${value} is not a format it prints.`
        : `-o is the output format on every command: write the export to a file with --output-file ${value} (or -O ${value}).`,
    ),
  },
  async handler(args, ctx) {
    const { all, contexts: ids } = args;
    if (all && ids.length > 0) throw errors.usage("give context ids or --all, not both");
    if (!all && ids.length === 0) throw errors.usage("name the contexts to export (ddsctl export <contextId...>) or pass --all");
    const service = await ctx.service();
    const contexts = await contextsToExport(service, ids, all);
    const file = args.outputFile;
    const sink = file ? NdjsonSink.toFile(file) : NdjsonSink.toStream(ctx.out.resultStream());
    let counts: ExportCounts;
    try {
      counts = await runExport(service, contexts, sink);
      await sink.end();
    } catch (err) {
      sink.abort();
      throw err;
    }
    const { out } = ctx;
    // Without a file, stdout is the export itself: the counts go to stderr only.
    if (file && out.options.json) out.json({ file, lines: sink.lines, ...counts });
    const omitted = counts.omitted > 0 ? ` (${counts.omitted} contribution(s) of deleted records left out)` : "";
    out.info(
      out.c.dim(
        `exported ${counts.models} model(s), ${counts.rules} rule(s), ${counts.contexts} context(s), ${counts.contributions} contribution(s), ` +
          `${counts.records} record(s), ${counts.evaluations} evaluation(s)${file ? ` to ${file}` : ""}${omitted}`,
      ),
    );
  },
});
