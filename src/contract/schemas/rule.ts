import { z } from "zod";
import { RULE_CATEGORIES, RULE_SEVERITIES, RULE_STATUSES } from "../constants.js";
import { Id, Timestamp } from "./common.js";

export const RuleCategory = z.enum(RULE_CATEGORIES);
export type RuleCategory = z.infer<typeof RuleCategory>;

export const RuleSeverity = z.enum(RULE_SEVERITIES);
export type RuleSeverity = z.infer<typeof RuleSeverity>;

export const RuleStatus = z.enum(RULE_STATUSES);
export type RuleStatus = z.infer<typeof RuleStatus>;

/** Body of POST /rules. */
export const RuleCreate = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullish(),
  category: RuleCategory,
  severity: RuleSeverity,
  expression: z.unknown().refine((v) => v !== undefined, "is required"),
  contextTypes: z.array(z.string()).optional(),
  status: RuleStatus.optional(),
});
export type RuleCreate = z.infer<typeof RuleCreate>;

/** Body of PATCH /rules/{id}: only the given properties change. */
export const RulePatch = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(2000).nullish(),
  category: RuleCategory.optional(),
  severity: RuleSeverity.optional(),
  expression: z.unknown().optional(),
  contextTypes: z.array(z.string()).optional(),
});
export type RulePatch = z.infer<typeof RulePatch>;

/** A rule as the API returns it. */
export const Rule = z.object({
  ruleId: Id,
  name: z.string(),
  description: z.string(),
  category: RuleCategory,
  severity: RuleSeverity,
  expression: z.unknown(),
  contextTypes: z.array(z.string()),
  status: RuleStatus,
  version: z.number().int(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Rule = z.infer<typeof Rule>;

export { RULE_CATEGORIES, RULE_SEVERITIES, RULE_STATUSES };
