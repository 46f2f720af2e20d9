import type { Command } from "commander";
import { errors } from "../../../contract/errors.js";
import { RULE_CATEGORIES, RULE_SEVERITIES } from "../../../contract/constants.js";

/** The friendly flags of `rules create` and `rules update`, beside `-f`. */
export function withRuleFlags(cmd: Command, what: string): Command {
  return cmd
    .option("-f, --file <path|->", `the ${what} body as JSON (- reads stdin)`)
    .option("--name <name>", "rule name")
    .option("--category <category>", RULE_CATEGORIES.join(", "))
    .option("--severity <severity>", RULE_SEVERITIES.join(", "))
    .option("--expression <json>", `JSON Logic, e.g. '{">=":[{"var":"Loan.amount"},100000]}'`)
    .option("--description <text>", "what the rule checks")
    .option("--context-types <types>", "comma-separated context types it applies to (empty: all)");
}

/** Body properties given as flags (undefined when not given). */
export function ruleFlagValues(flags: Record<string, unknown>): Record<string, unknown> {
  let expression: unknown;
  if (flags.expression !== undefined) {
    try {
      expression = JSON.parse(flags.expression as string);
    } catch (err) {
      throw errors.usage(`--expression is not valid JSON: ${(err as Error).message}`);
    }
  }
  const types = flags.contextTypes as string | undefined;
  return {
    name: flags.name,
    category: flags.category,
    severity: flags.severity,
    expression,
    description: flags.description,
    contextTypes: types === undefined ? undefined : types.split(",").map((s) => s.trim()).filter((s) => s.length > 0),
  };
}
