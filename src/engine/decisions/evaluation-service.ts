import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import type { Evaluation, Page } from "../../contract/schemas/index.js";
import { requireContext } from "../contexts/context-service.js";
import type { EngineContext } from "../engine-context.js";
import { requireRule } from "./rule-service.js";
import { toApiEvaluation } from "./rule-view.js";

/** Read-only evaluation lists: per context, one per context and rule, per rule. */
export function createEvaluationService(ctx: EngineContext) {
  return {
    async listContextEvaluations(contextId: string, query?: ListQuery): Promise<Page<Evaluation>> {
      const context = await requireContext(ctx, contextId);
      const page = await ctx.rules.listEvaluations(query ?? {}, { contextId: context.id });
      return { data: page.rows.map(toApiEvaluation), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },
    async getContextEvaluation(contextId: string, ruleId: string): Promise<Evaluation> {
      const context = await requireContext(ctx, contextId);
      const rule = await requireRule(ctx, ruleId);
      const row = await ctx.rules.getEvaluation(context.id, rule.id);
      if (!row) throw errors.notFound("evaluation", `of rule ${rule.name} in context ${context.id}`);
      return toApiEvaluation(row);
    },
    async listRuleEvaluations(ruleId: string, query?: ListQuery): Promise<Page<Evaluation>> {
      const rule = await requireRule(ctx, ruleId);
      const page = await ctx.rules.listEvaluations(query ?? {}, { ruleId: rule.id });
      return { data: page.rows.map(toApiEvaluation), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },
  };
}
