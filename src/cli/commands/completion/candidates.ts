import { LIST_SPECS, type ListName, type ListSpec } from "../../../contract/list-query.js";
import { canonicalNoun, canonicalVerb } from "../../core/aliases.js";
import type { ArgDef, CompleteKind } from "../../core/args.js";
import { longFlag } from "../../core/args.js";
import type { CommandDefinition } from "../../core/define-command.js";
import { GLOBAL_OPTIONS } from "../../core/program.js";
import type { TargetFlags } from "../../target.js";

/** What the word under the cursor can be: fixed words, names from the target, or a filter of a list. */
export type Want = { words: string[] } | { names: CompleteKind } | { filter: ListName };

const GLOBAL_VALUE = new Set(GLOBAL_OPTIONS.filter(([f]) => f.includes("<")).map(([f]) => f.split(" ")[0]));
const GLOBAL_FLAGS = GLOBAL_OPTIONS.map(([f]) => f.split(" ")[0]);

/** The global target flags among the typed words (`--local x.db`, `--remote …`), to list names from that target. */
export function targetFlagsOf(words: string[]): TargetFlags {
  const flags: TargetFlags = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const next = words[i + 1];
    if (w === "--local") flags.local = next !== undefined && !next.startsWith("-") ? words[++i] : true;
    else if (w === "--remote" || w === "--token" || w === "--profile") {
      if (next !== undefined) flags[w.slice(2) as "remote" | "token" | "profile"] = words[++i];
    }
  }
  return flags;
}

/** A typed word as the command word it stands for: `ctx` → `contexts`, `ls` → `list` after a noun. */
function canonicalWord(commands: CommandDefinition[], path: string[], word: string): string {
  if (path.length === 0) return canonicalNoun(word);
  const verbs = commands.filter((c) => c.command.startsWith(`${path.join(" ")} `)).map((c) => c.command.split(" ")[path.length]);
  return canonicalVerb(word, verbs);
}

const OPERATOR = /^([^[\]=<>!~]+)(\[[a-z]+\]=|!=|>=|<=|~=|=|>|<)(.*)$/s;

/**
 * Candidates for a `--filter` value of `list`: its fields (`status=`, `metadata.`) until an
 * operator is typed, then the field's values when they are a fixed set (`status=active`, each
 * item of `status[in]=active,…`). Everything LIST_SPECS knows, nothing from the target.
 */
export function filterCandidates(list: ListName, current: string): string[] {
  const spec: ListSpec = LIST_SPECS[list];
  const m = OPERATOR.exec(current);
  if (!m) return spec.filters.map((f) => (f.endsWith(".*") ? f.slice(0, -1) : `${f}=`));
  const [, field, op, value] = m;
  const kind = spec.kinds?.[field];
  const values = Array.isArray(kind) ? (kind as readonly string[]) : kind === "boolean" ? ["true", "false"] : [];
  // In a list (`[in]=a,b`), complete the item after the last comma.
  const head = op === "[in]=" ? value.slice(0, value.lastIndexOf(",") + 1) : "";
  return values.map((v) => `${field}${op}${head}${v}`);
}

function flagsOf(def: CommandDefinition | undefined): [string, ArgDef][] {
  return def ? Object.entries(def.args).filter(([, a]) => !a.positional && !a.hidden).map(([k, a]) => [longFlag(k, a), a]) : [];
}

/**
 * Works out what the last word can be from the words before it: a subcommand, a flag, a
 * flag's value or a positional argument, using the same declarations as the parser.
 */
export function wantAt(commands: CommandDefinition[], typed: string[]): Want {
  const words = typed.slice(0, -1);
  const current = typed[typed.length - 1] ?? "";
  const path: string[] = [];
  const positionals: string[] = [];
  let def: CommandDefinition | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w.startsWith("-")) {
      const flag = flagsOf(def).find(([f, a]) => f === w || (a.short && `-${a.short}` === w));
      // Skip the value of a flag that takes one.
      if ((flag && flag[1].type !== "boolean") || GLOBAL_VALUE.has(w)) i++;
      continue;
    }
    const next = [...path, canonicalWord(commands, path, w)].join(" ");
    const found = commands.find((c) => c.command === next);
    if (!def && (found || commands.some((c) => c.command.startsWith(`${next} `)))) {
      path.push(canonicalWord(commands, path, w));
      def = found;
      continue;
    }
    positionals.push(w);
  }
  const previous = words[words.length - 1];
  const valueOf = flagsOf(def).find(([f, a]) => (f === previous || (a.short && `-${a.short}` === previous)) && a.type !== "boolean");
  if (valueOf) {
    const arg = valueOf[1];
    if (arg.list) return { filter: arg.list };
    if (arg.type === "string" && arg.choices) return { words: [...arg.choices] };
    return arg.complete && arg.complete !== "file" ? { names: arg.complete } : { words: [] };
  }
  if (GLOBAL_VALUE.has(previous ?? "")) return { words: [] };
  if (current.startsWith("-")) return { words: [...flagsOf(def).map(([f]) => f), ...GLOBAL_FLAGS] };
  if (!def) {
    const prefix = path.length > 0 ? `${path.join(" ")} ` : "";
    const next = commands.filter((c) => !c.hidden && c.command.startsWith(prefix)).map((c) => c.command.slice(prefix.length).split(" ")[0]);
    return { words: [...new Set(next)] };
  }
  const positional = Object.values(def.args).filter((a) => a.positional);
  const arg = positional[Math.min(positionals.length, positional.length - 1)];
  if (!arg || (positionals.length >= positional.length && arg.type !== "strings")) return { words: [] };
  if (arg.type === "string" && arg.choices) return { words: [...arg.choices] };
  return arg.complete && arg.complete !== "file" ? { names: arg.complete } : { words: [] };
}
