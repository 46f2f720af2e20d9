import type { Command } from "commander";
import type { DdsService } from "../contract/service.js";
import type { Output } from "./output.js";
import type { Target } from "./target.js";

/** What a command's action receives besides its own arguments and flags. */
export interface CommandContext {
  out: Output;
  /** Opens the service for the resolved target (once; later calls reuse it). */
  service(): Promise<DdsService>;
  target(): Target;
  /** Sets the process exit code without stopping (e.g. 3 for partial success). */
  setExitCode(code: number): void;
}

/**
 * One CLI command, declared as data: where it hangs (`path`), its arguments and flags
 * (`configure`), an example for --help, and its action.
 */
export interface CommandSpec {
  /** e.g. ["models", "create"]; a single element for top-level commands. */
  path: string[];
  description: string;
  /** Shown under "Examples:" in --help; at least one per command. */
  examples: string[];
  configure?(cmd: Command): Command;
  /** Commands that do not need a target (serve picks its own, tokens open the db). */
  run(ctx: CommandContext, args: string[], flags: Record<string, unknown>): Promise<void>;
}

/** Identity helper that gives a command spec its type. */
export function defineCommand(spec: CommandSpec): CommandSpec {
  return spec;
}
