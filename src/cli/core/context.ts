import { existsSync } from "node:fs";
import { isPostgresUrl } from "../../engine/store/location.js";
import { DdsError } from "../../contract/errors.js";
import type { DdsService } from "../../contract/service.js";
import type { RetryNotice } from "../../client/index.js";
import type { Output } from "../output/output.js";
import { openService, retryLine } from "../service-factory.js";
import { migrationProgress } from "../common/migration-progress.js";
import { createThrottle, noteThrottle } from "../common/throttle.js";
import { describeTarget, resolveTarget, type Target } from "../target.js";
import type { ArgDefs, ArgsOf } from "./args.js";
import type { CommandContext, CommandDefinition, GlobalFlags } from "./define-command.js";
import type { CliIO } from "./io.js";

/** What one run shares with the contexts it creates (the service, to close it at the end). */
export interface RunState {
  exitCode: number;
  service?: DdsService;
  /** True once a command has taken over Ctrl-C. */
  interruptClaimed: boolean;
  interrupt: AbortController;
}

/** True when a person can answer prompts: stdin and stdout are both terminals. */
export function isInteractive(io: CliIO): boolean {
  return Boolean(io.stdin.isTTY && io.stdout.isTTY);
}

/** The error of a read against a local database that does not exist (exit 1). */
export function missingDatabase(db: string): DdsError {
  return new DdsError(
    "invalid_request",
    `no database at ${db}: create one with ddsctl init or ddsctl demo, or run any write (e.g. ddsctl models create), which creates it`,
  );
}

/**
 * The target to open. A read against a local database that does not exist would create an
 * empty one (and its folder) and answer "nothing": it is refused, saying how to make one.
 * A dry run of a writing command (`apply --dry-run`) plans against an empty database held
 * in memory instead, so it still creates no file.
 */
function targetToOpen(def: CommandDefinition, readOnly: boolean, target: Target): Target {
  // A PostgreSQL database exists on its server (its operator made it); reads of it are reads.
  if (target.mode !== "local" || target.db === ":memory:" || isPostgresUrl(target.db) || existsSync(target.db)) return target;
  if (def.writes && !readOnly) return target;
  if (def.writes) return { ...target, db: ":memory:" };
  throw missingDatabase(target.db);
}

/** Builds the context a handler receives. */
export function createContext(
  def: CommandDefinition,
  values: ArgsOf<ArgDefs>,
  io: CliIO,
  out: Output,
  flags: GlobalFlags,
  state: RunState,
  argv: string[],
  sources: Record<string, string> = {},
): CommandContext {
  const readOnly = def.readOnlyWhen?.(values) ?? false;
  let target: Target | undefined;
  const throttle = createThrottle();
  // A 429 is the server's rate limit: said once in a while, not at every wait.
  const onRetry = (n: RetryNotice) => {
    const throttled = noteThrottle(throttle, n);
    if (throttled === undefined) out.info(out.c.dim(retryLine(n)));
    else if (throttled) out.info(out.c.yellow(throttled));
  };
  const ctx: CommandContext = {
    out,
    io,
    globals: flags,
    argv,
    sourceOf: (key) => sources[key] ?? "default",
    target: () => (target ??= resolveTarget(flags, io.env, { ambientRemote: !def.localByDefault })),
    service: async () => {
      if (!state.service) {
        const t = ctx.target();
        const opened = targetToOpen(def, readOnly, t);
        state.service = await openService(opened, { env: io.env, onRetry, onMigrationProgress: migrationProgress(out) });
        out.info(out.c.dim(opened === t ? describeTarget(t) : `${describeTarget(t)} (no such file yet: a dry run against an empty database)`));
      }
      return state.service;
    },
    setExitCode: (code) => {
      state.exitCode = code;
    },
    async confirm(question, yes) {
      if (yes || !isInteractive(io)) return;
      // Lazy: the prompts are a side bundle, required only when a terminal is asked to confirm.
      const { confirm } = await import("@inquirer/prompts");
      if (!(await confirm({ message: question, default: false }, { input: io.stdin, output: io.stderr }))) throw new DdsError("invalid_request", "cancelled: nothing was changed");
    },
    interrupt: state.interrupt.signal,
    handleInterrupt: () => {
      state.interruptClaimed = true;
    },
    throttle,
  };
  return ctx;
}
