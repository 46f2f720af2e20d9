import type { TraceStep } from "../../../src/contract/schemas/index.js";
import { compileExpression } from "../../../src/portable/json-logic/index.js";

/** A traced evaluation of `expression` over plain `data`: the fixed input of renderer tests. */
export function traced(expression: unknown, data: object): { steps: TraceStep; expression: unknown; inputs: Record<string, unknown>; result: unknown } {
  const run = compileExpression(expression).evaluate(data, { trace: true });
  return { steps: run.steps!, expression, inputs: run.inputs, result: run.result };
}

/** Rules used across the workbench unit tests. */
export const EXPR = {
  dti: { "<=": [{ var: "Loan.dti" }, 0.43] },
  credit: {
    and: [{ ">=": [{ var: "Loan.amount" }, 1000] }, { all: [{ var: "Applicant.creditScore" }, { ">=": [{ var: "" }, 620] }] }],
  },
  tiers: {
    if: [{ "<": [{ var: "score" }, 580] }, "decline", { "<": [{ var: "score" }, 680] }, "review", "approve"],
  },
  anyFlag: { or: [{ var: "flags.fraud" }, { var: "flags.sanction" }, { some: [{ var: "docs" }, { "==": [{ var: "status" }, "forged"] }] }] },
  notLarge: { "!": { ">": [{ var: "amount" }, 1000000] } },
};
