import { Argument, Command, InvalidArgumentError, Option } from "commander";
import type { ArgDef, ArgDefs } from "./args.js";
import { longFlag } from "./args.js";
import type { CommandDefinition } from "./define-command.js";
import { NOUN_ALIASES, VERB_ALIASES } from "./aliases.js";

/** Descriptions of the command groups. */
export const NOUNS: Record<string, string> = {
  models: "models: schemas with fields, identity and relationships",
  fields: "fields of models, by model and name or by fieldId",
  contexts: "decisioning contexts: the boundary around one decision",
  contributions: "evidence: field values from a source, bound to a record at ingest",
  records: "resolved records: one value per field, with lineage and issues",
  relationships: "links between records of a context (read and remove)",
  rules: "rules: JSON Logic checks evaluated against every applicable context",
  evaluations: "rule outcomes per context, with freshness",
  pipeline: "the resolution pipeline: run it now or see what is stale",
  webhooks: "webhooks: signed event deliveries to your endpoints, with retries",
  tokens: "API tokens for ddsctl serve (managed on the database, never over HTTP)",
  workspaces: "the database's workspaces (tenants), each with its tokens and data",
  profiles: "saved targets (a local database or a remote service) in ~/.config/ddsctl/config.json",
  secrets: "the key that encrypts stored secrets (rotated on the database, never over HTTP)",
};

/**
 * The topics of the top-level help, as gh groups its commands: each command group or
 * top-level command under one heading (anything unlisted falls under "Commands:").
 */
export const TOPICS: Record<string, string> = Object.fromEntries(
  Object.entries({
    "Resources:": ["models", "fields", "contexts", "contributions", "records", "relationships", "rules", "evaluations"],
    "Rule workbench and pipeline:": ["trace", "pipeline"],
    "Loading data:": ["demo", "apply", "seed", "import", "export", "wait"],
    "Serving and operations:": ["serve", "studio", "migrate", "tokens", "workspaces", "secrets", "webhooks"],
    "Setup:": ["init", "login", "profiles", "completion", "version"],
  }).flatMap(([heading, words]) => words.map((w) => [w, heading])),
);

/** The global options, declared once for the parser, help and completion. */
export const GLOBAL_OPTIONS: [flags: string, description: string][] = [
  ["--local [db]", "use the embedded SQLite database (default ./.dds/dds.db)"],
  ["--database <url>", "run in-process on this database: a SQLite path or a postgres:// URL (also DDS_DATABASE_URL)"],
  ["--remote <url>", "use a remote service at this base URL (e.g. http://127.0.0.1:8080/v1)"],
  ["--token <token>", "API token for --remote"],
  ["--profile <name>", "use a saved profile (see ddsctl profiles)"],
  ["--workspace <name>", "the workspace of a database this process opens (also DDS_WORKSPACE or the profile's; default: default); a remote service uses its token's"],
  ["--json", "print exactly the API's JSON (the same as -o json)"],
  ["--jq <expression>", "filter the JSON output with a jq expression (implies --json; strings print raw)"],
  ["--no-color", "disable colour (NO_COLOR is honoured too)"],
  ["--quiet", "print results only: no banner, hints or progress"],
];

const collect = (commaSeparated: boolean | undefined) => (value: string, previous: string[] | undefined) => [
  ...(previous ?? []),
  ...(commaSeparated ? value.split(",").map((s) => s.trim()).filter(Boolean) : [value]),
];

function addArgument(cmd: Command, key: string, def: ArgDef): void {
  const name = def.placeholder ?? key;
  const variadic = def.type === "strings" ? "..." : "";
  const required = def.type !== "boolean" && def.required;
  const arg = new Argument(required ? `<${name}${variadic}>` : `[${name}${variadic}]`, def.description);
  if (def.type === "string" && def.choices) arg.choices(def.choices);
  if (def.type === "string" && def.default !== undefined) arg.default(def.default);
  cmd.addArgument(arg);
}

function addOption(cmd: Command, key: string, def: ArgDef): void {
  const short = def.short ? `-${def.short}, ` : "";
  const value = def.type === "boolean" ? "" : ` <${def.placeholder ?? key}>`;
  const option = new Option(`${short}${longFlag(key, def)}${value}`, def.description);
  if (def.hidden) option.hideHelp();
  if (def.type === "string") {
    if (def.choices) option.choices(def.choices);
    const { choices, explainInvalid } = def;
    // The choices stay listed in help; a refused value also says why.
    if (choices && explainInvalid) {
      option.argParser((value: string) => {
        if (choices.includes(value)) return value;
        throw new InvalidArgumentError(`Allowed choices are ${choices.join(", ")}. ${explainInvalid(value)}`.trim());
      });
    }
    if (def.default !== undefined) option.default(def.default);
    if (def.required) option.makeOptionMandatory();
  }
  if (def.type === "strings") option.argParser(collect(def.commaSeparated));
  cmd.addOption(option);
}

/** Reads the parsed values back into the shape the handler declared. */
function valuesOf(cmd: Command, args: ArgDefs): Record<string, unknown> {
  const opts = cmd.opts();
  const values: Record<string, unknown> = {};
  let index = 0;
  for (const [key, def] of Object.entries(args)) {
    const raw = def.positional ? cmd.processedArgs[index++] : opts[key];
    if (def.type === "boolean") values[key] = raw ?? (def.negatable ? true : false);
    else if (def.type === "strings") values[key] = raw ?? [];
    else values[key] = raw;
  }
  return values;
}

/** Puts a command added to the program itself under its topic in the top-level help. */
function topLevel(parent: Command, cmd: Command): Command {
  return parent.parent === null ? cmd.helpGroup(TOPICS[cmd.name()] ?? "Commands:") : cmd;
}

/** Finds or creates the group command of `words` (all but the last word). */
function parentOf(program: Command, words: string[]): Command {
  let parent = program;
  for (const word of words) {
    parent = parent.commands.find((c) => c.name() === word) ?? topLevel(parent, parent.command(word).description(NOUNS[word] ?? word).aliases(NOUN_ALIASES[word] ?? []));
  }
  return parent;
}

/** Registers the group `noun` (`contexts`) by its name, aliases and description, without its commands. */
export function attachGroup(program: Command, noun: string): void {
  parentOf(program, [noun]);
}

/** Registers one definition under `program`; `run` receives the handler's values. */
export function attachCommand(program: Command, def: CommandDefinition, run: (def: CommandDefinition, values: Record<string, unknown>, cmd: Command) => Promise<void>): void {
  const words = def.command.split(" ");
  const parent = parentOf(program, words.slice(0, -1));
  const verb = words[words.length - 1];
  const cmd = topLevel(parent, parent.command(verb, { hidden: def.hidden }).description(def.description));
  if (words.length > 1) cmd.aliases(VERB_ALIASES[verb] ?? []);
  for (const [key, arg] of Object.entries(def.args)) {
    if (arg.positional) addArgument(cmd, key, arg);
    else addOption(cmd, key, arg);
  }
  if (def.help) cmd.addHelpText("after", `\n${def.help}`);
  cmd.addHelpText("after", `\nExamples:\n${def.examples.map((e) => `  $ ${e}`).join("\n")}\n`);
  cmd.action(async () => run(def, valuesOf(cmd, def.args), cmd));
}
