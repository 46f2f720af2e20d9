/** The operator tables: json-logic-js's operators, optionally with ddsctl's extras. */
import { BASIC_OPERATORS } from "./ops-basic.js";
import { CONTROL_OPERATORS } from "./ops-control.js";
import { DATA_OPERATORS } from "./ops-data.js";
import { EXTRA_OPERATORS } from "./ops-extra.js";
import { SCOPED_OPERATORS } from "./ops-scoped.js";
import type { OpCompiler } from "./runtime.js";

// A Map, not an object: an operator named "toString" or "__proto__" must not be found.
const STANDARD = new Map<string, OpCompiler>([
  ...BASIC_OPERATORS,
  ...CONTROL_OPERATORS,
  ...SCOPED_OPERATORS,
  ...DATA_OPERATORS,
]);

const EXTENDED = new Map<string, OpCompiler>([...STANDARD, ...EXTRA_OPERATORS]);

/** The compiler of `op`, or undefined when it is not an operator. */
export function findOperator(op: string, extraOperators: boolean): OpCompiler | undefined {
  return (extraOperators ? EXTENDED : STANDARD).get(op);
}

/** Why `op` is rejected: `method` gets its own reason. */
export function unknownOperatorMessage(op: string, extraOperators: boolean): string {
  if (op === "method") return `operator "method" is not supported: it would call arbitrary JavaScript methods`;
  if (!extraOperators && EXTENDED.has(op)) return `unknown operator "${op}" (extra operators are disabled)`;
  return `unknown operator "${op}"`;
}
