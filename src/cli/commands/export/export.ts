import { errors } from "../../../contract/errors.js";
import type { Context } from "../../../contract/schemas/index.js";
import type { DdsService } from "../../../contract/service.js";
import { defineCommand } from "../../command.js";
import { NdjsonSink } from "../../ndjson/ndjson-sink.js";
import { everyItem, runExport, type ExportCounts } from "./export-run.js";

/** The contexts to export: every one with --all, else the given ids (all checked first). */
async function contextsToExport(service: DdsService, ids: string[], all: boolean): Promise<AsyncIterable<Context>> {
  if (all) return everyItem((q) => service.listContexts(q));
  const found: Context[] = [];
  // Fetch every id before writing a line: a typo fails fast (exit 4), not halfway.
  for (const id of ids) found.push(await service.getContext(id));
  return (async function* () {
    yield* found;
  })();
}

/** `ddsctl export <contextId...>`: a case (or every case) as NDJSON another database can load. */
export default defineCommand({
  path: ["export"],
  description: "export contexts as NDJSON: models, rules, contexts, contributions (re-importable), records and evaluations",
  examples: [
    "ddsctl export <contextId> > case.ndjson",
    "ddsctl export --all -o everything.ndjson",
    "ddsctl --remote https://dds.example/v1 export <contextId> -o case.ndjson",
    "ddsctl --local replay.db import contributions case.ndjson --create-contexts   # its evidence, into another database",
  ],
  configure: (cmd) =>
    cmd
      .argument("[contextId...]", "the contexts to export")
      .option("--all", "export every context")
      .option("-o, --output <file>", "write to this file (written whole, then moved into place) instead of stdout"),
  async run(ctx, ids, flags) {
    const all = Boolean(flags.all);
    if (all && ids.length > 0) throw errors.usage("give context ids or --all, not both");
    if (!all && ids.length === 0) throw errors.usage("name the contexts to export (ddsctl export <contextId...>) or pass --all");
    const service = await ctx.service();
    const contexts = await contextsToExport(service, ids, all);
    const file = flags.output as string | undefined;
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
    // Without -o, stdout is the export itself: the counts go to stderr only.
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
