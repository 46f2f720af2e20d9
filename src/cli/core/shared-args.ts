import { RECORD_INCLUDES } from "../../contract/constants.js";
import type { ListName } from "../../contract/list-query.js";
import type { BooleanArg, StringArg, StringsArg } from "./args.js";
import { filterHelp, sortHelp } from "./list-args.js";

/** Output formats of commands that print resources. */
export const OUTPUT_FORMATS = ["json", "yaml", "wide", "name"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The `-o` declarations: the one flag every command prints its result in the format of. */
const FORMAT_ARGS = new WeakSet<StringArg>();

/**
 * `-o <format>` limited to the formats a command can print; any other is a usage error
 * (exit 2) at parse time, saying why (`because`) when the reason is not obvious.
 */
export function formatArgs(formats: readonly OutputFormat[], description: string, because?: (value: string) => string): { output: StringArg } {
  const output: StringArg = { type: "string", short: "o", placeholder: "format", choices: formats, description, ...(because ? { explainInvalid: because } : {}) };
  FORMAT_ARGS.add(output);
  return { output };
}

/** True for a `-o` declared by {@link formatArgs}: its value is the output format. */
export function isFormatArg(def: unknown): boolean {
  return FORMAT_ARGS.has(def as StringArg);
}

/** `-o json|yaml|wide|name` (`--json` is `-o json`): commands that print resources. */
export const outputArgs = formatArgs(OUTPUT_FORMATS, "json (the REST body), yaml, wide (every column, nothing cut) or name (kind/name per line)");

/**
 * `-o json|yaml|wide`: commands that print a report (a summary, a trace, a plan) rather
 * than resources, which has no `kind/name` lines to print.
 */
export const reportArgs = formatArgs(
  ["json", "yaml", "wide"],
  "json (the body --json prints), yaml, or wide (nothing cut)",
  (value) => (value === "name" ? "This command prints a report, not resources: there are no kind/name lines to print." : ""),
);

/** --filter, --sort, --limit, --cursor, --all, and -o: every list command takes them, described from its list's spec. */
export function listArgs(list: ListName) {
  return {
    filter: { type: "strings", placeholder: "expr", list, description: filterHelp(list) } satisfies StringsArg,
    sort: { type: "string", placeholder: "fields", description: sortHelp(list) } satisfies StringArg,
    limit: { type: "string", placeholder: "n", description: "page size, 1..500 (default 50)" } satisfies StringArg,
    cursor: { type: "string", description: "continue from a previous page's nextCursor" } satisfies StringArg,
    all: { type: "boolean", description: "follow nextCursor until the last page" } satisfies BooleanArg,
    ...outputArgs,
  };
}

/** `-f, --file <path|->`: a request body, JSON or YAML, from a file or stdin (src/cli/document-input.ts reads it). */
export function fileArg(what: string): { file: StringArg } {
  return { file: { type: "string", short: "f", placeholder: "path|-", complete: "file", description: `${what} as JSON or YAML (- reads stdin)` } };
}

/** `--no-wait` on commands that add evidence or change rules. */
export const waitArgs = {
  wait: {
    type: "boolean",
    negatable: true,
    description: "return at once instead of waiting for the pipeline to resolve what changed",
  } satisfies BooleanArg,
};

/** `--yes`: skip the confirmation a destructive command asks for on a terminal. */
export const yesArgs = {
  yes: { type: "boolean", short: "y", description: "do not ask for confirmation" } satisfies BooleanArg,
};

/** `--metadata key=value` (repeatable). */
export const metadataArg = {
  type: "strings",
  placeholder: "key=value",
  description: "metadata pair (repeatable; JSON values allowed)",
} satisfies StringsArg;

/** Positional or flag references by name or id, declared once. */
export const refs = {
  model: { type: "string", positional: true, required: true, complete: "model", description: "model name or modelId" } satisfies StringArg,
  context: { type: "string", positional: true, required: true, complete: "context", description: "context name or contextId" } satisfies StringArg,
  rule: { type: "string", positional: true, required: true, complete: "rule", description: "rule name or ruleId" } satisfies StringArg,
  webhook: { type: "string", positional: true, required: true, complete: "webhook", description: "webhook URL or webhookId" } satisfies StringArg,
  record: { type: "string", positional: true, required: true, placeholder: "recordId", description: "the record's id" } satisfies StringArg,
};

/** `--include model,lineage` of record reads. */
export const includeArg = {
  type: "string",
  placeholder: "parts",
  description: `embed more, comma-separated: ${RECORD_INCLUDES.join(", ")}`,
} satisfies StringArg;

/** `--context`, `--model`, `--rule` flags: a name or an id, resolved by the one resolver. */
export const refFlags = {
  context: { type: "string", complete: "context", placeholder: "context", description: "context name or contextId" } satisfies StringArg,
  model: { type: "string", complete: "model", placeholder: "model", description: "model name or modelId" } satisfies StringArg,
  rule: { type: "string", complete: "rule", placeholder: "rule", description: "rule name or ruleId" } satisfies StringArg,
};
