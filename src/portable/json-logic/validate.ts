/**
 * The strict validator used when a rule is created or changed: everything the compiler
 * refuses, plus what json-logic-js would quietly accept but a stored rule should not have
 * (multi-key objects, non-JSON values, reserved segments in computed `var` paths).
 */
import { compileNode, resolveOptions } from "./compile.js";
import { MAX_EXPRESSION_DEPTH, containsLogic, isLogic } from "./literal.js";
import { joinPath } from "./runtime.js";
import type { CompileOptions, RuleProblem } from "./types.js";
import { forbiddenSegment } from "./var-read.js";

/** Reports string literals with a reserved segment anywhere inside a computed var path. */
function checkComputedPath(value: unknown, path: string, problems: RuleProblem[], depth: number): void {
  if (depth > MAX_EXPRESSION_DEPTH) return;
  if (typeof value === "string") {
    const bad = forbiddenSegment(value.split("."));
    if (bad !== undefined) {
      problems.push({ path, message: `var path part "${value}" uses the reserved segment "${bad}"` });
    }
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => checkComputedPath(v, joinPath(path, String(i)), problems, depth + 1));
  } else if (isLogic(value)) {
    const op = Object.keys(value)[0];
    checkComputedPath(value[op], joinPath(path, op), problems, depth + 1);
  }
}

function checkVar(raw: unknown, opPath: string, problems: RuleProblem[]): void {
  const first = Array.isArray(raw) ? raw[0] : raw;
  // Literal scalar paths are the compiler's job; computed and array paths are scanned here.
  if (Array.isArray(first) || containsLogic(first)) {
    checkComputedPath(first, Array.isArray(raw) ? joinPath(opPath, "0") : opPath, problems, 0);
  }
}

function walk(
  value: unknown,
  path: string,
  problems: RuleProblem[],
  ancestors: Set<object>,
  depth: number,
): void {
  // The compiler has already reported the excess depth.
  if (depth > MAX_EXPRESSION_DEPTH) return;
  const report = (message: string): void => {
    problems.push({ path, message });
  };
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) report(`${String(value)} is not a JSON value`);
      return;
    case "object":
      if (value === null) return;
      break;
    default:
      report(`${typeof value} is not a JSON value`);
      return;
  }
  if (ancestors.has(value)) return report("circular reference");
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = joinPath(path, String(i));
      if (i in value) walk(value[i], at, problems, ancestors, depth + 1);
      else problems.push({ path: at, message: "array hole is not a JSON value" });
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    const keys = Object.keys(value);
    if (proto !== Object.prototype && proto !== null) {
      report("not a plain JSON object");
    } else if (keys.length !== 1) {
      const found = keys.length === 0 ? "none" : keys.map((k) => JSON.stringify(k)).join(", ");
      report(`an operation object must have exactly one key (found ${found})`);
    } else {
      const op = keys[0];
      const raw = (value as Record<string, unknown>)[op];
      const opPath = joinPath(path, op);
      if (op === "var") checkVar(raw, opPath, problems);
      walk(raw, opPath, problems, ancestors, depth + 1);
    }
  }
  ancestors.delete(value);
}

/**
 * Validates a rule expression strictly and returns every problem (empty when valid), each
 * with a dotted path such as `and.1.var` (`""` is the root). Reports what
 * `compileExpression` refuses, and also: objects that do not have exactly one key (in
 * JSON Logic they would be silent data literals), values that are not JSON, and
 * reserved segments (`__proto__`, `constructor`, `prototype`) in literal parts of
 * computed `var` paths.
 */
export function validateRuleExpression(expression: unknown, options?: CompileOptions): RuleProblem[] {
  const problems: RuleProblem[] = [];
  compileNode(expression, "", resolveOptions(options), problems);
  walk(expression, "", problems, new Set(), 0);
  return problems;
}
