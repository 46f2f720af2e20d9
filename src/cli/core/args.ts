import type { ListName } from "../../contract/list-query.js";

/**
 * Argument and flag declarations: a command lists them as data, and its handler receives
 * them typed. One declaration serves the parser, --help and shell completion.
 */

/** What completion offers for a value: names from the current target, or file paths. */
export type CompleteKind = "model" | "context" | "rule" | "webhook" | "file";

interface ArgBase {
  description: string;
  /** A positional argument (in declaration order) instead of a `--flag`. */
  positional?: boolean;
  /** One-letter alias, e.g. `f` for `-f`. */
  short?: string;
  /** How the value is shown in help: `<path|->`. Defaults to the key. */
  placeholder?: string;
  complete?: CompleteKind;
  hidden?: boolean;
  /** On `--filter`: the list whose fields and values it takes (help and completion offer them). */
  list?: ListName;
  /**
   * The environment variables that give a flag its value when the command line does not
   * (flag > variable > default; of several, the first that is set). --help names them, and
   * a bad value is refused naming the variable. `serve` declares one on every flag.
   */
  env?: string | readonly string[];
  /**
   * True when the command reads the variable itself, with a precedence of its own that the
   * description states (`--pool-size`: DDS_DB_POOL comes after the URL's pool_size), so the
   * parser leaves it alone; --help still names it.
   */
  envReadByCommand?: boolean;
}

/** A string: `--name <name>` or a positional `<model>`. */
export interface StringArg extends ArgBase {
  type: "string";
  required?: boolean;
  default?: string;
  choices?: readonly string[];
  /** Says why a value outside `choices` is refused (after the list of choices). */
  explainInvalid?: (value: string) => string;
}

/** A repeatable flag (`--data a=1 --data b=2`) or a variadic positional (`[contextId...]`). */
export interface StringsArg extends ArgBase {
  type: "strings";
  required?: boolean;
  /** `--event a,b` counts as two values. */
  commaSeparated?: boolean;
}

/** A switch: `--all`, or with `negatable` a `--no-wait` whose key (`wait`) defaults to true. */
export interface BooleanArg extends ArgBase {
  type: "boolean";
  negatable?: boolean;
}

/** One declared argument or flag. */
export type ArgDef = StringArg | StringsArg | BooleanArg;

/** A command's arguments and flags, keyed by the name the handler reads. */
export type ArgDefs = Record<string, ArgDef>;

type ValueOf<D> = D extends { type: "boolean" } ? boolean : D extends { type: "strings" } ? string[] : string;
type Always<D> = D extends { type: "boolean" } | { type: "strings" } | { required: true } | { default: string } ? true : false;

/** The values a handler receives: declared keys with their types, optional unless always set. */
export type ArgsOf<A extends ArgDefs> = { [K in keyof A]: Always<A[K]> extends true ? ValueOf<A[K]> : ValueOf<A[K]> | undefined };

/** The environment variables of a declaration, in the order they are looked at. */
export function envNames(def: ArgDef): readonly string[] {
  return def.env === undefined ? [] : typeof def.env === "string" ? [def.env] : def.env;
}

/** `sourceId` → `source-id`: the flag spelling of a key. */
export function flagName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The long flag a declaration parses, e.g. `--no-wait` or `--source-id`. */
export function longFlag(key: string, def: ArgDef): string {
  return def.type === "boolean" && def.negatable ? `--no-${flagName(key)}` : `--${flagName(key)}`;
}
