import { Argument, Command, InvalidArgumentError, Option } from "commander";
import { errors } from "../../contract/errors.js";
import type { ArgDef, ArgDefs } from "./args.js";
import { envNames, longFlag } from "./args.js";
import type { Env } from "./io.js";
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
  ["--quiet", "print results only: no banner, hints or progress (also DDS_QUIET=1)"],
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
  const env = envNames(def);
  const option = new Option(`${short}${longFlag(key, def)}${value}`, env.length > 0 ? `${def.description} (env: ${env.join(", ")})` : def.description);
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

/** Where each flag's value came from: `--port`, `DDS_PORT`, or `default`, by key. */
export type ValueSources = Record<string, string>;

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

/** A switch's value from its variable `name` set to `text` (1/0, true/false, yes/no, on/off); anything else is a usage error. */
export function envSwitch(name: string, text: string): boolean {
  const word = text.trim().toLowerCase();
  if (TRUE.has(word)) return true;
  if (FALSE.has(word)) return false;
  throw errors.usage(`${name}=${text}: use true or false (1 or 0)`);
}

/** A flag's value from its variable `name` (set to `text`), checked as the flag's would be. */
function fromEnv(def: ArgDef, name: string, text: string): unknown {
  if (def.type === "boolean") return envSwitch(name, text);
  if (def.type === "strings") return def.commaSeparated ? text.split(",").map((s) => s.trim()).filter(Boolean) : [text];
  if (def.choices && !def.choices.includes(text)) throw errors.usage(`${name}=${text}: use one of ${def.choices.join(", ")}`);
  return text;
}

/**
 * Reads the parsed values back into the shape the handler declared. A flag not on the
 * command line takes its value from the first of its variables that is set (`env` in its
 * declaration), before its default.
 */
function valuesOf(cmd: Command, args: ArgDefs, env: Env): { values: Record<string, unknown>; sources: ValueSources } {
  const opts = cmd.opts();
  const values: Record<string, unknown> = {};
  const sources: ValueSources = {};
  let index = 0;
  for (const [key, def] of Object.entries(args)) {
    const raw = def.positional ? cmd.processedArgs[index++] : opts[key];
    const given = def.positional || cmd.getOptionValueSource(key) === "cli";
    sources[key] = def.positional ? key : given ? longFlag(key, def) : "default";
    const variable = given || def.envReadByCommand ? undefined : envNames(def).find((name) => env[name] !== undefined && env[name] !== "");
    if (variable) {
      values[key] = fromEnv(def, variable, env[variable]!);
      sources[key] = variable;
    } else if (def.type === "boolean") values[key] = raw ?? (def.negatable ? true : false);
    else if (def.type === "strings") values[key] = raw ?? [];
    else values[key] = raw;
  }
  return { values, sources };
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

/** Registers one definition under `program`; `run` receives the handler's values (flags, else their variables in `env`) and where each came from. */
export function attachCommand(
  program: Command,
  def: CommandDefinition,
  run: (def: CommandDefinition, values: Record<string, unknown>, cmd: Command, sources: ValueSources) => Promise<void>,
  env: Env = {},
): void {
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
  cmd.action(async () => {
    const { values, sources } = valuesOf(cmd, def.args, env);
    await run(def, values, cmd, sources);
  });
}
