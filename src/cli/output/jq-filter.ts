/**
 * `--jq <expression>`: filters the JSON a command prints, as gh's `--jq` does, with jqjs (a
 * maintained pure-JS jq; no binary to download), loaded only when the flag is given. Strings
 * print raw (as `jq -r`); other values as JSON, indented on a terminal and one per line
 * otherwise. An expression that does not parse, or fails on the JSON, is a usage error.
 */
import { errors } from "../../contract/errors.js";

/** A compiled `--jq` filter: every output of the expression for one JSON body. */
export type JqFilter = (value: unknown) => unknown[];

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Compiles `expression` (a syntax error is a usage error, before the command runs). */
export async function compileJq(expression: string): Promise<JqFilter> {
  // Lazy: jq is a side bundle (scripts/bundle.mjs), required only when --jq is given.
  const { compile } = await import("@michaelhomer/jqjs");
  let program: ReturnType<typeof compile>;
  try {
    program = compile(expression);
  } catch (err) {
    throw errors.usage(`--jq ${expression}: ${messageOf(err)}`);
  }
  return (value) => {
    try {
      return [...program(value)];
    } catch (err) {
      throw errors.usage(`--jq ${expression}: ${messageOf(err)} (the command itself ran; --json shows its JSON)`);
    }
  };
}

/** The text of a filter's outputs: one per line, strings raw. */
export function jqText(outputs: unknown[], indent: boolean): string {
  return outputs.map((v) => `${typeof v === "string" ? v : (JSON.stringify(v, null, indent ? 2 : 0) ?? "null")}\n`).join("");
}

/**
 * Why `--jq` cannot apply to this run, if it cannot: the command prints no JSON (it has no
 * `-o`), or another format was asked for.
 */
export function jqRefusal(command: string, printsJson: boolean, format: string | undefined): string | undefined {
  if (!printsJson) return `--jq filters JSON output, and ddsctl ${command} prints none`;
  if (format !== undefined && format !== "json") return `--jq filters JSON output: drop -o ${format}`;
  return undefined;
}
