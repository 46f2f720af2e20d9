import { existsSync, statSync } from "node:fs";
import { Argument } from "commander";
import { DdsError, errors, ExitCode } from "../../../contract/errors.js";
import { defineCommand } from "../../command.js";
import { drainPipeline, withNoWait } from "../pipeline/drain.js";
import { IMPORT_KINDS, KINDS, type ImportKind } from "./import-kinds.js";
import type { ImportOptions } from "./import-setup.js";

function integerFlag(flag: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(String(value)) || n < min || n > max) throw errors.usage(`${flag} must be an integer from ${min} to ${max}, got "${String(value)}"`);
  return n;
}

/** Turns the command's flags into import options, with the documented defaults. */
function optionsOf(kind: ImportKind, input: string, flags: Record<string, unknown>, remote: boolean): ImportOptions {
  if (input === "-" && process.stdin.isTTY) throw errors.usage("import reads NDJSON from stdin, which is a terminal: pipe the data in or give a file path");
  if (input !== "-" && !existsSync(input)) throw errors.usage(`cannot read ${input}: no such file`);
  if (input !== "-" && statSync(input).isDirectory()) throw errors.usage(`${input} is a directory: give an NDJSON file`);
  // A pipe (`<(zcat x.gz)`) is read like stdin: it cannot be fingerprinted or re-read.
  const stdin = input === "-" || !statSync(input).isFile();
  if (flags.resume && stdin && !flags.checkpoint) throw errors.usage("--resume on stdin or a pipe needs --checkpoint <path> (the checkpoint a previous run wrote with it)");
  const dryRun = Boolean(flags.dryRun);
  const concurrency = integerFlag("--concurrency", flags.concurrency, 1, 64);
  const explicitRejects = flags.rejects as string | undefined;
  return {
    kind,
    input,
    // A dry run writes nothing unless asked: a real run's rejects file stays as it was.
    rejects: explicitRejects ?? (dryRun ? undefined : stdin ? "import.rejects.ndjson" : `${input}.rejects.ndjson`),
    checkpoint: dryRun ? undefined : ((flags.checkpoint as string | undefined) ?? (stdin ? undefined : `${input}.checkpoint.json`)),
    resume: Boolean(flags.resume),
    maxErrors: integerFlag("--max-errors", flags.maxErrors, 0),
    dryRun,
    createContexts: Boolean(flags.createContexts),
    // SQLite has one writer: locally a second batch in flight would only wait for the first.
    concurrency: remote ? (concurrency ?? 4) : 1,
    maxLineBytes: integerFlag("--max-line-bytes", flags.maxLineBytes, 2) ?? 1024 * 1024,
  };
}

/** `ddsctl import <kind> <file|->`: NDJSON of any size, streamed, exactly once. */
export default defineCommand({
  path: ["import"],
  description: "load NDJSON (any size, streamed) as contributions, record updates or record deletes: batches of 100, exactly once, resumable",
  examples: [
    "ddsctl import contributions evidence.ndjson --create-contexts",
    "ddsctl import contributions big.ndjson --resume --max-errors 100 --json",
    "ddsctl --remote https://dds.example/v1 import contributions case.ndjson --concurrency 8",
    "cat updates.ndjson | ddsctl import records-update - --dry-run",
    "ddsctl import records-delete stale-records.ndjson --no-wait",
  ],
  configure: (cmd) =>
    withNoWait(
      cmd
        .addArgument(new Argument("<kind>", "what each line is").choices(IMPORT_KINDS))
        .argument("<file|->", "NDJSON input, one item per line (- reads stdin)")
        .option("--rejects <path>", "where failed lines go, as {line, error, input} NDJSON (default <file>.rejects.ndjson, ./import.rejects.ndjson for stdin)")
        .option("--resume", "skip the lines the checkpoint (<file>.checkpoint.json) records as done")
        .option("--checkpoint <path>", "checkpoint file (default <file>.checkpoint.json; stdin has none unless given)")
        .option("--max-errors <n>", "stop once more than n lines have failed (exit 3)")
        .option("--dry-run", "check every line locally (JSON, shape, model and context names) and send nothing")
        .option("--create-contexts", "create a context named by a line's contextRef when none has that name")
        .option("--concurrency <n>", "requests in flight in remote mode (default 4; local imports send one at a time)")
        .option("--max-line-bytes <n>", "longer lines are rejected without being buffered (default 1048576)"),
    ),
  async run(ctx, [kindArg, input], flags) {
    const kind = kindArg as ImportKind;
    const remote = ctx.target().mode === "remote";
    const opts = optionsOf(kind, input, flags, remote);
    if (!remote && flags.concurrency !== undefined) ctx.out.info(ctx.out.c.dim("local imports send one batch at a time (SQLite has one writer); --concurrency applies to --remote"));
    const service = await ctx.service();
    const { runImport } = await import("./import-run.js");
    const { progressBar } = await import("./import-progress.js");
    const { renderSummary } = await import("./import-summary.js");
    const result = await runImport(service, opts, await progressBar(ctx.out));
    renderSummary(ctx.out, result, KINDS[kind], opts.dryRun);
    if (result.failure) {
      const { error, line, doneThrough } = result.failure;
      const base = error instanceof DdsError ? error : new DdsError("internal_error", (error as Error)?.message ?? String(error));
      const resume = opts.checkpoint ? `; rerun with --resume to continue after line ${doneThrough}` : "";
      throw new DdsError(base.code, `import stopped: the batch starting at line ${line} failed: ${base.message}${resume}`, base.errors);
    }
    if (result.counts.failed > 0) ctx.setExitCode(ExitCode.partial);
    if (opts.dryRun) return;
    // A resumed import wrote to contexts in earlier runs too: drain everything stale.
    await drainPipeline(ctx, flags, result.touched ? [...result.touched] : undefined);
  },
});
