import type { Throttle } from "../common/throttle.js";
import type { DdsService } from "../../contract/service.js";
import type { Output } from "../output/output.js";
import type { Target } from "../target.js";
import type { ArgDefs, ArgsOf } from "./args.js";
import type { CliIO } from "./io.js";

/** The global options every command accepts (declared in core/program.ts). */
export interface GlobalFlags {
  local?: string | boolean;
  database?: string;
  remote?: string;
  token?: string;
  profile?: string;
  workspace?: string;
  json?: boolean;
  /** `--jq <expression>`: filter the JSON output (implies --json). */
  jq?: string;
  color?: boolean;
  quiet?: boolean;
}

/** What a handler receives besides its own arguments and flags. */
export interface CommandContext {
  out: Output;
  io: CliIO;
  /** The global options as given (init and login read --token). */
  globals: GlobalFlags;
  /** The command line as given (without node and the script), e.g. to print how to resume. */
  argv: string[];
  /**
   * Where a declared flag's value came from, to name it in an error: the flag (`--port`),
   * the environment variable that gave it (`DDS_PORT`), or `default`.
   */
  sourceOf(key: string): string;
  /** The target chosen by flags, environment and profile (resolved once). */
  target(): Target;
  /**
   * Opens the service for the target (once; later calls reuse it). A command that does not
   * write refuses a local database that does not exist instead of creating it.
   */
  service(): Promise<DdsService>;
  /** Sets the exit code without stopping (e.g. 3 for partial success). */
  setExitCode(code: number): void;
  /**
   * Asks before something destructive on a terminal (`--yes` skips the question); without
   * a terminal it proceeds, as scripts always did. A "no" ends the command with exit 1.
   */
  confirm(question: string, yes: boolean): Promise<void>;
  /**
   * Aborted on Ctrl-C once the command has claimed it with `handleInterrupt`; otherwise
   * Ctrl-C ends the command at once with exit 130.
   */
  readonly interrupt: AbortSignal;
  /** Takes over Ctrl-C: the command stops cleanly itself when `interrupt` aborts. */
  handleInterrupt(): void;
  /** How the server's rate limit has held this command back (remote mode; an import's progress shows it). */
  readonly throttle?: Throttle;
}

/**
 * One CLI command as data: its words (`"contexts list"`), help, examples, arguments and
 * flags, and a handler typed by those declarations (after wrangler's `createCommand`).
 */
export interface CommandDefinition<A extends ArgDefs = ArgDefs> {
  /** The words that invoke it, e.g. `"contexts list"` or `"demo"`. */
  command: string;
  description: string;
  /** Shown under "Examples:" in --help; at least one per command. */
  examples: string[];
  args: A;
  /** More help text, shown after the flags. */
  help?: string;
  /**
   * True for commands that write: on a local target they create the database on first
   * use. Every other command fails on a database that does not exist.
   */
  writes?: boolean;
  /**
   * True for commands that run on the local database unless a flag names a remote target
   * (`--remote`, `--profile`): a remote current profile or DDS_BASE_URL does not move them.
   */
  localByDefault?: boolean;
  /** For a writing command: true when these arguments only read (`apply --dry-run`). */
  readOnlyWhen?(args: ArgsOf<A>): boolean;
  /** Left out of --help and completion (the `__complete` helper). */
  hidden?: boolean;
  // Method syntax keeps handlers with their own argument types assignable to the registry's.
  handler(args: ArgsOf<A>, ctx: CommandContext): Promise<void>;
}

/** Declares a command; the handler's `args` are typed from `args`. */
export function defineCommand<const A extends ArgDefs>(definition: CommandDefinition<A>): CommandDefinition<A> {
  return definition;
}
