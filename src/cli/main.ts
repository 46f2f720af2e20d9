import { Command, CommanderError } from "commander";
import { DdsError, errors, ExitCode, isDdsError } from "../contract/errors.js";
import { createContext, type RunState } from "./core/context.js";
import type { ArgDefs, ArgsOf } from "./core/args.js";
import type { CommandDefinition, GlobalFlags } from "./core/define-command.js";
import { processIO, type CliIO } from "./core/io.js";
import { canonicalNoun } from "./core/aliases.js";
import { attachCommand, attachGroup, envSwitch, GLOBAL_OPTIONS, TOPICS, type ValueSources } from "./core/program.js";
import { isFormatArg } from "./core/shared-args.js";
import { asksForJson, HELP_AFTER_ERROR, parseProblem } from "./core/parse-errors.js";
import { EXIT_INTERRUPTED } from "./exit-codes.js";
import { Output, type Format } from "./output/output.js";
import { jqRefusal } from "./output/jq-filter.js";
import { packageVersion } from "./package-root.js";
import { COMMAND_INDEX, loadCommands, type CommandEntry } from "./registry.js";
import { sharedContextNames } from "../portable/names/resolve-ref.js";


function isPipeClosed(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === "EPIPE";
}

/** inquirer's answer to Ctrl-C inside a prompt. */
function isPromptInterrupt(err: unknown): boolean {
  return (err as Error | undefined)?.name === "ExitPromptError";
}

type Run = (def: CommandDefinition, values: Record<string, unknown>, flags: GlobalFlags, sources?: ValueSources) => Promise<void>;

/** Global options followed by a value (`--local` takes one when the next word is not a flag). */
const OPTION_TAKES_VALUE = new Set(["--remote", "--token", "--profile", "--local", "--database", "--jq", "--workspace"]);

/** The words of the command line that are not options or options' values. */
function positionalWords(argv: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (!a.startsWith("-")) words.push(a);
    else if (OPTION_TAKES_VALUE.has(a) && argv[i + 1] !== undefined && !argv[i + 1].startsWith("-")) i++;
  }
  return words;
}

/** A command to register, or a command group shown by its name and description only. */
type Slot = CommandDefinition | { group: string };

const firstWordOf = (e: CommandEntry) => e.command.split(" ")[0];

/**
 * What to register for this command line: the commands under its first word (or the word
 * after `help`) when it names a command, else the top-level commands and each group by name
 * only, for the top-level help and "unknown command". Only those commands' files load:
 * loading and building the others is most of what start-up would cost.
 */
async function commandsFor(argv: string[]): Promise<Slot[]> {
  const words = positionalWords(argv);
  const word = words[0] === "help" ? words[1] : words[0];
  const first = word === undefined ? undefined : canonicalNoun(word);
  const mine = COMMAND_INDEX.filter((e) => !e.command.startsWith("__") && firstWordOf(e) === first);
  if (mine.length > 0) return loadCommands(mine);
  const groups = new Set<string>();
  const slots: (CommandEntry | { group: string })[] = [];
  for (const e of COMMAND_INDEX) {
    const noun = firstWordOf(e);
    if (e.command.startsWith("__")) continue;
    if (e.command === noun) slots.push(e);
    else if (!groups.has(noun)) slots.push({ group: noun }), groups.add(noun);
  }
  const defs = await loadCommands(slots.filter((s): s is CommandEntry => "load" in s));
  let next = 0;
  return slots.map((s) => ("load" in s ? defs[next++] : s));
}

function buildProgram(io: CliIO, run: Run, argv: string[], slots: Slot[]): Command {
  // Under --json a parse error is a problem object (written by `report`), not commander's lines.
  const json = asksForJson(argv);
  const program = new Command("ddsctl")
    .description("Command-line tool and local-first workbench for a decisioning data service")
    .version(packageVersion(), "-V, --version", "print the version");
  for (const [flags, description] of GLOBAL_OPTIONS) program.option(flags, description);
  program
    .showHelpAfterError(HELP_AFTER_ERROR)
    .exitOverride()
    .configureOutput({
      writeErr: (s) => (json && s === `${HELP_AFTER_ERROR}\n` ? undefined : io.stderr.write(s)),
      outputError: (s, write) => (json ? undefined : write(s)),
      writeOut: (s) => io.stdout.write(s),
      getOutHelpWidth: () => io.stdout.columns ?? 80,
      getErrHelpWidth: () => io.stderr.columns ?? 80,
    });
  program.addHelpText(
    "after",
    "\nExamples:\n  $ npx ddsctl demo\n  $ npx ddsctl models list -o wide\n  $ DDS_DB=/tmp/x.db npx ddsctl contexts create --name case-1 --json\n  $ npx ddsctl --database postgres://dds@db.internal/dds serve --host 0.0.0.0\n",
  );
  for (const slot of slots) {
    if ("group" in slot) attachGroup(program, slot.group);
    else attachCommand(program, slot, (d, values, cmd, sources) => run(d, values, cmd.optsWithGlobals(), sources), io.env);
  }
  // `help` joins the last topic instead of a heading of its own.
  program.commandsGroup(TOPICS.completion).helpCommand(true);
  return program;
}

/**
 * Runs the CLI with `argv` (process.argv without node and script) against `io` (the real
 * process by default, or a test's streams and environment) and returns the exit code.
 */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const state: RunState = { exitCode: ExitCode.ok, interruptClaimed: false, interrupt: new AbortController() };
  let out = new Output(io, { format: asksForJson(argv) || argv.includes("--jq") ? "json" : "table", color: false, quiet: false });
  // A reader that stopped early (`| head`) is not an error: end quietly, as `git log | head`
  // does. The listener stays: the error of the last writes may arrive after main returns.
  const onStdoutError = (err: Error) => {
    if (isPipeClosed(err)) io.exit?.(ExitCode.ok);
  };
  io.stdout.on("error", onStdoutError);
  const stopListening = io.onInterrupt?.(() => {
    if (state.interruptClaimed && !state.interrupt.signal.aborted) return state.interrupt.abort();
    out.notice("interrupted");
    io.exit?.(EXIT_INTERRUPTED);
  });

  const run: Run = async (def, values, flags, sources = {}) => {
    // `-o` is the output format wherever a command declares it (export's file is --output-file).
    const printsJson = isFormatArg(def.args.output);
    const asked = printsJson ? (values.output as Format | undefined) : undefined;
    const jqProblem = flags.jq === undefined ? undefined : jqRefusal(def.command, printsJson, asked);
    if (jqProblem) throw errors.usage(jqProblem);
    const format = asked ?? (flags.json || flags.jq !== undefined ? "json" : "table");
    const quiet = flags.quiet === true || (io.env.DDS_QUIET ? envSwitch("DDS_QUIET", io.env.DDS_QUIET) : false);
    out = new Output(io, { format, color: flags.color !== false && !io.env.NO_COLOR, quiet, jq: flags.jq });
    await out.init();
    // The parser filled `values` from the same declarations that type the handler.
    const args = values as ArgsOf<ArgDefs>;
    await def.handler(args, createContext(def, args, io, out, flags, state, argv, sources));
  };

  try {
    // The completion helper takes the typed words raw: `--fi` is a word to complete there.
    const complete = argv[0] === "__complete" ? COMMAND_INDEX.find((c) => c.command === "__complete") : undefined;
    if (complete) await run((await complete.load()).default, { words: argv.slice(1) }, {});
    else await buildProgram(io, run, argv, await commandsFor(argv)).parseAsync(argv, { from: "user" });
  } catch (err) {
    state.exitCode = report(err, out, io);
  } finally {
    // `-o name` lines wait for the end: which context names are shared is asked once.
    const service = state.service;
    await out.flushNames(service && ((names) => sharedContextNames(service, names)));
    await state.service?.close().catch(() => undefined);
    stopListening?.();
  }
  return state.exitCode;
}

function report(err: unknown, out: Output, io: CliIO): number {
  if (err instanceof CommanderError) {
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version") return ExitCode.ok;
    // Help shown because a subcommand is missing (`ddsctl models`) is a usage error;
    // commander marks it with a non-zero exit code, an explicit `ddsctl help` with 0.
    if (err.code === "commander.help") return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    // Commander has already written its message, unless --json asked for the problem object.
    if (out.options.format === "json") out.error(parseProblem(err));
    return ExitCode.usage;
  }
  if (isPipeClosed(err)) return ExitCode.ok;
  if (isPromptInterrupt(err)) {
    out.notice("interrupted");
    return EXIT_INTERRUPTED;
  }
  const debug = io.env.DDS_DEBUG === "1";
  if (isDdsError(err)) {
    out.error(err.toProblem());
    if (debug && err.stack) io.stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  const e = err as Error;
  // Under DDS_DEBUG=1 the stack follows; the hint to set it would only be noise.
  const hint = debug ? "its stack follows" : "set DDS_DEBUG=1 for details";
  const wrapped = new DdsError("internal_error", `unexpected error: ${e?.message ?? String(err)} (${hint})`);
  out.error(wrapped.toProblem());
  if (debug && e?.stack) io.stderr.write(`${e.stack}\n`);
  return ExitCode.failure;
}
