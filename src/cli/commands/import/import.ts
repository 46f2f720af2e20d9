import { existsSync, statSync } from "node:fs";
import { DdsError, errors, ExitCode } from "../../../contract/errors.js";
import type { CommandContext } from "../../core/define-command.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs, waitArgs } from "../../core/shared-args.js";
import { EXIT_INTERRUPTED } from "../../exit-codes.js";
import { drainPipeline } from "../../common/drain.js";
import { IMPORT_KINDS, KINDS, type ImportKind } from "./import-kinds.js";
import type { ImportOptions } from "./import-setup.js";
import { progressBar } from "./import-progress.js";
import { renderSummary } from "./import-summary.js";

function integerFlag(flag: string, value: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw errors.usage(`${flag} must be an integer from ${min} to ${max}, got "${value}"`);
  return n;
}

interface ImportFlags {
  rejects?: string;
  resume: boolean;
  checkpoint?: string;
  maxErrors?: string;
  dryRun: boolean;
  createContexts: boolean;
  concurrency?: string;
  maxLineBytes?: string;
}

/** Turns the command's flags into import options, with the documented defaults. */
function optionsOf(ctx: CommandContext, kind: ImportKind, input: string, flags: ImportFlags, remote: boolean): ImportOptions {
  if (input === "-" && ctx.io.stdin.isTTY) throw errors.usage("import reads NDJSON from stdin, which is a terminal: pipe the data in or give a file path");
  if (input !== "-" && !existsSync(input)) throw errors.usage(`cannot read ${input}: no such file`);
  if (input !== "-" && statSync(input).isDirectory()) throw errors.usage(`${input} is a directory: give an NDJSON file`);
  // A pipe (`<(zcat x.gz)`) is read like stdin: it cannot be fingerprinted or re-read.
  const stdin = input === "-" || !statSync(input).isFile();
  if (flags.resume && stdin && !flags.checkpoint) throw errors.usage("--resume on stdin or a pipe needs --checkpoint <path> (the checkpoint a previous run wrote with it)");
  const { dryRun } = flags;
  const concurrency = integerFlag("--concurrency", flags.concurrency, 1, 64);
  return {
    kind,
    input,
    // A dry run writes its rejects beside the real run's (same format), never over them: a
    // checkpointed real run's rejects file must stay what its checkpoint says.
    rejects: flags.rejects ?? `${stdin ? "import" : input}${dryRun ? ".dry-run" : ""}.rejects.ndjson`,
    checkpoint: dryRun ? undefined : (flags.checkpoint ?? (stdin ? undefined : `${input}.checkpoint.json`)),
    resume: flags.resume,
    maxErrors: integerFlag("--max-errors", flags.maxErrors, 0),
    dryRun,
    createContexts: flags.createContexts,
    // SQLite has one writer: locally a second batch in flight would only wait for the first.
    concurrency: remote ? (concurrency ?? 4) : 1,
    maxLineBytes: integerFlag("--max-line-bytes", flags.maxLineBytes, 2) ?? 1024 * 1024,
    stdin: ctx.io.stdin,
    signal: ctx.interrupt,
  };
}

/** The command line that continues an interrupted import: the same one, with --resume. */
function resumeCommand(argv: string[]): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const words = argv.includes("--resume") ? argv : [...argv, "--resume"];
  return `ddsctl ${words.map(quote).join(" ")}`;
}

/** `ddsctl import <kind> <file|->`: NDJSON of any size, streamed, exactly once. */
export default defineCommand({
  command: "import",
  description: "load NDJSON (any size, streamed) as contributions, record updates or record deletes: batches of 100, exactly once, resumable",
  examples: [
    "ddsctl import contributions evidence.ndjson --create-contexts",
    "ddsctl import contributions big.ndjson --resume --max-errors 100 --json",
    "ddsctl --remote https://dds.example/v1 import contributions case.ndjson --concurrency 8",
    "cat updates.ndjson | ddsctl import records-update - --dry-run",
    "ddsctl import records-delete stale-records.ndjson --no-wait",
  ],
  args: {
    kind: { type: "string", positional: true, required: true, choices: IMPORT_KINDS, description: "what each line is" },
    input: { type: "string", positional: true, required: true, placeholder: "file|-", complete: "file", description: "NDJSON input, one item per line (- reads stdin)" },
    rejects: { type: "string", placeholder: "path", description: "where failed lines go, as {line, error, input} NDJSON (default <file>.rejects.ndjson, ./import.rejects.ndjson for stdin; with --dry-run <file>.dry-run.rejects.ndjson)" },
    resume: { type: "boolean", description: "skip the lines the checkpoint (<file>.checkpoint.json) records as done" },
    checkpoint: { type: "string", placeholder: "path", description: "checkpoint file (default <file>.checkpoint.json; stdin has none unless given)" },
    maxErrors: { type: "string", placeholder: "n", description: "stop once more than n lines have failed (exit 3)" },
    dryRun: { type: "boolean", description: "check every line (JSON, shape, field types and enums, identity, model and context names) and write nothing" },
    createContexts: { type: "boolean", description: "create a context named by a line's contextRef when none has that name" },
    concurrency: { type: "string", placeholder: "n", description: "requests in flight in remote mode (default 4; local imports send one at a time)" },
    maxLineBytes: { type: "string", placeholder: "n", description: "longer lines are rejected without being buffered (default 1048576)" },
    ...waitArgs,
    ...reportArgs,
  },
  writes: true,
  readOnlyWhen: (args) => args.dryRun,
  async handler(args, ctx) {
    const kind = args.kind as ImportKind;
    const remote = ctx.target().mode === "remote";
    const opts = optionsOf(ctx, kind, args.input, args, remote);
    if (!remote && args.concurrency !== undefined) ctx.out.info(ctx.out.c.dim("local imports send one batch at a time (SQLite has one writer); --concurrency applies to --remote"));
    const service = await ctx.service();
    // Lazy: loading import-run.ts exposes gc to the process (its collectGarbage), which only an import may do.
    const { runImport } = await import("./import-run.js");
    // Ctrl-C stops the import cleanly: batches in flight commit, the checkpoint follows.
    ctx.handleInterrupt();
    const result = await runImport(service, opts, await progressBar(ctx.out, ctx.throttle));
    renderSummary(ctx.out, result, KINDS[kind], opts.dryRun);
    const waits = ctx.throttle?.waits ?? 0;
    if (waits > 0) ctx.out.info(`throttled: the server's rate limit held ${waits} request(s) back, each sent again with its Idempotency-Key when the server asked: nothing was applied twice`);
    if (result.interrupted) {
      const how = opts.checkpoint ? `continue with: ${resumeCommand(ctx.argv)}` : "nothing to resume from (no checkpoint): rerun it, replayed lines create nothing twice";
      ctx.out.notice(`interrupted after line ${result.counts.lines}; ${how}`);
      ctx.setExitCode(EXIT_INTERRUPTED);
      return;
    }
    if (result.failure) {
      const { error, line, doneThrough } = result.failure;
      const base = error instanceof DdsError ? error : new DdsError("internal_error", (error as Error)?.message ?? String(error));
      const resume = opts.checkpoint ? `; rerun with --resume to continue after line ${doneThrough}` : "";
      throw new DdsError(base.code, `import stopped: the batch starting at line ${line} failed: ${base.message}${resume}`, base.errors);
    }
    // Lines edited after they were stored are not imported as they read: partial too.
    if (result.counts.failed > 0 || result.counts.changed > 0) ctx.setExitCode(ExitCode.partial);
    if (opts.dryRun) return;
    // A resumed import wrote to contexts in earlier runs too: drain everything stale.
    await drainPipeline(ctx, args, result.touched ? [...result.touched] : undefined);
  },
});
