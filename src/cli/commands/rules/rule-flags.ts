import { errors } from "../../../contract/errors.js";
import { RULE_CATEGORIES, RULE_SEVERITIES } from "../../../contract/constants.js";
import type { StringArg } from "../../core/args.js";
import { fileArg } from "../../core/shared-args.js";

/** The friendly flags of `rules create` and `rules update`, beside `-f`. */
export function ruleArgs(what: string) {
  return {
    ...fileArg(`the ${what} body`),
    name: { type: "string", description: "rule name" } satisfies StringArg,
    category: { type: "string", description: RULE_CATEGORIES.join(", ") } satisfies StringArg,
    severity: { type: "string", description: RULE_SEVERITIES.join(", ") } satisfies StringArg,
    expression: { type: "string", placeholder: "json", description: `JSON Logic, e.g. '{">=":[{"var":"Loan.amount"},100000]}'` } satisfies StringArg,
    description: { type: "string", placeholder: "text", description: "what the rule checks" } satisfies StringArg,
    contextTypes: { type: "string", placeholder: "types", description: "comma-separated context types it applies to (empty: all)" } satisfies StringArg,
  };
}

/** The values of those flags. */
export interface RuleFlags {
  name?: string;
  category?: string;
  severity?: string;
  expression?: string;
  description?: string;
  contextTypes?: string;
}

/** Body properties given as flags (undefined when not given). */
export function ruleFlagValues(flags: RuleFlags): Record<string, unknown> {
  let expression: unknown;
  if (flags.expression !== undefined) {
    try {
      expression = JSON.parse(flags.expression);
    } catch (err) {
      throw errors.usage(`--expression is not valid JSON: ${(err as Error).message}`);
    }
  }
  const types = flags.contextTypes;
  return {
    name: flags.name,
    category: flags.category,
    severity: flags.severity,
    expression,
    description: flags.description,
    contextTypes: types === undefined ? undefined : types.split(",").map((s) => s.trim()).filter((s) => s.length > 0),
  };
}
