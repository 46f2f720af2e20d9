/**
 * Failures of the command line itself (an unknown flag, a value outside a flag's choices),
 * which the parser reports before any command runs. Under `--json` they are a problem
 * object on stderr, as every other failure is, so a script reads one shape.
 */
import type { CommanderError } from "commander";
import { errors, type Problem } from "../../contract/errors.js";

/** The line commander adds after a parse error: left out under --json. */
export const HELP_AFTER_ERROR = "(add --help for usage)";

/** True when the command line asks for JSON: `--json`, `-o json`, `-ojson`, `--output json` or `--output=json`. */
export function asksForJson(argv: string[]): boolean {
  return argv.some((a, i) => a === "--json" || a === "-ojson" || a === "--output=json" || ((a === "-o" || a === "--output") && argv[i + 1] === "json"));
}

/** The problem of a parse error: a usage error (exit 2) with commander's sentence. */
export function parseProblem(err: CommanderError): Problem {
  return errors.usage(err.message.replace(/^error: /, "")).toProblem();
}
