import type { RuleProblem } from "./types.js";

/**
 * Thrown by `compileExpression` when an expression cannot be evaluated. `problems` lists
 * every problem found (not just the first), each with a dotted path into the expression
 * such as `and.1.var` (`""` is the root; array positions are numbers).
 */
export class JsonLogicCompileError extends Error {
  readonly problems: RuleProblem[];

  constructor(problems: RuleProblem[]) {
    const first = problems[0];
    const where = first && first.path !== "" ? `${first.path}: ` : "";
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
    super(`JSON Logic expression is invalid: ${where}${first?.message ?? "unknown problem"}${more}`);
    this.name = "JsonLogicCompileError";
    this.problems = problems;
  }
}
