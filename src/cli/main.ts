import { Command, CommanderError } from "commander";
import { DdsError, ExitCode, isDdsError } from "../contract/errors.js";
import type { DdsService } from "../contract/service.js";
import type { CommandContext, CommandSpec } from "./command.js";
import { COMMANDS, NOUNS } from "./registry.js";
import { Output } from "./output.js";
import { openService } from "./service-factory.js";
import { describeTarget, resolveTarget, type Target } from "./target.js";

interface GlobalFlags {
  local?: string | boolean;
  database?: string;
  remote?: string;
  token?: string;
  profile?: string;
  json?: boolean;
  color?: boolean;
  quiet?: boolean;
}

function attach(program: Command, spec: CommandSpec, run: (spec: CommandSpec, cmd: Command) => Promise<void>): void {
  let parent = program;
  for (const noun of spec.path.slice(0, -1)) {
    parent = parent.commands.find((c) => c.name() === noun) ?? parent.command(noun).description(NOUNS[noun] ?? noun);
  }
  const name = spec.path[spec.path.length - 1];
  let cmd = parent.command(name).description(spec.description);
  if (spec.configure) cmd = spec.configure(cmd);
  cmd.addHelpText("after", `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join("\n")}\n`);
  cmd.action(async () => run(spec, cmd));
}

/** Runs the CLI with `argv` (process.argv without node and script) and returns the exit code. */
export async function main(argv: string[], version: string): Promise<number> {
  let exitCode: number = ExitCode.ok;
  let out = new Output({ json: argv.includes("--json"), color: false, quiet: false });
  let service: DdsService | undefined;
  const program = new Command("ddsctl")
    .description("Command-line tool and local-first workbench for a decisioning data service")
    .version(version, "-V, --version", "print the version")
    .option("--local [db]", "use the embedded SQLite database (default ./.dds/dds.db)")
    .option("--database <url>", "run in-process on this database: a SQLite path or a postgres:// URL (also DDS_DATABASE_URL)")
    .option("--remote <url>", "use a remote service at this base URL (e.g. http://127.0.0.1:8080/v1)")
    .option("--token <token>", "API token for --remote")
    .option("--profile <name>", "use a saved profile (see ddsctl profiles)")
    .option("--json", "print exactly the API's JSON")
    .option("--no-color", "disable colour (NO_COLOR is honoured too)")
    .option("--quiet", "print results only: no banner, hints or progress")
    .showHelpAfterError("(add --help for usage)")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  program.addHelpText(
    "after",
    "\nExamples:\n  $ ddsctl demo\n  $ ddsctl models list\n  $ DDS_DB=/tmp/x.db ddsctl contexts create --name case-1 --json\n  $ ddsctl --database postgres://dds@db.internal/dds serve --host 0.0.0.0\n",
  );

  const run = async (spec: CommandSpec, cmd: Command) => {
    const flags = cmd.optsWithGlobals() as GlobalFlags & Record<string, unknown>;
    out = new Output({
      json: Boolean(flags.json),
      color: flags.color !== false && !process.env.NO_COLOR,
      quiet: Boolean(flags.quiet),
    });
    await out.init();
    let target: Target | undefined;
    const ctx: CommandContext = {
      out,
      target: () => (target ??= resolveTarget(flags)),
      service: async () => {
        if (!service) {
          const t = ctx.target();
          service = await openService(t);
          out.info(out.c.dim(describeTarget(t)));
        }
        return service;
      },
      setExitCode: (code) => {
        exitCode = code;
      },
    };
    await spec.run(ctx, cmd.args, flags);
  };
  for (const spec of COMMANDS) attach(program, spec, run);

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    exitCode = report(err, out);
  } finally {
    await service?.close().catch(() => undefined);
  }
  return exitCode;
}

function report(err: unknown, out: Output): number {
  if (err instanceof CommanderError) {
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version") return ExitCode.ok;
    // Help shown because a subcommand is missing (`ddsctl models`) is a usage error;
    // commander marks it with a non-zero exit code, an explicit `ddsctl help` with 0.
    if (err.code === "commander.help") return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    // Commander has already written its message.
    return ExitCode.usage;
  }
  if (isDdsError(err)) {
    out.error(err.toProblem());
    if (process.env.DDS_DEBUG === "1" && err.stack) process.stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  const e = err as Error;
  const wrapped = new DdsError("internal_error", `unexpected error: ${e?.message ?? String(err)} (set DDS_DEBUG=1 for details)`);
  out.error(wrapped.toProblem());
  if (process.env.DDS_DEBUG === "1" && e?.stack) process.stderr.write(`${e.stack}\n`);
  return ExitCode.failure;
}
