/**
 * The shape of a `rules test` cases file (see `cli/workbench/rules-test/cases-file.ts`,
 * which reads them from disk). Apart from the reader so the studio's page can type the
 * cases it runs without the file system.
 */
import { z } from "zod";

/** One case: `data` (evaluated offline) or `context` (evaluated by the service), and what to expect. */
export const TestCase = z
  .strictObject({
    name: z.string().min(1),
    data: z.record(z.string(), z.unknown()).optional(),
    context: z.string().min(1).optional(),
    expect: z.boolean(),
    expectValues: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((c) => (c.data === undefined) !== (c.context === undefined), { message: "give exactly one of data and context" });
export type TestCase = z.infer<typeof TestCase>;

/** The rule a suite tests: a saved rule (name or ruleId), a rule file, or an inline expression. */
export const RuleRef = z.union([
  z.string().min(1),
  z.strictObject({ file: z.string().min(1) }),
  z.strictObject({ expression: z.unknown() }).refine((r) => r.expression !== undefined, { message: "expression is required" }),
]);
export type RuleRef = z.infer<typeof RuleRef>;

/** One suite: a rule and its cases. */
export const Suite = z.strictObject({ name: z.string().min(1).optional(), rule: RuleRef, cases: z.array(TestCase).min(1) });
export type Suite = z.infer<typeof Suite>;

/** A cases file: one suite, or `{suites: [...]}`. */
export const CasesDocument = z.union([z.strictObject({ suites: z.array(Suite).min(1) }), Suite]);
