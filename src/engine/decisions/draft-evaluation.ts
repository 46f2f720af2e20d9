import { errors } from "../../contract/errors.js";
import { parseBody } from "../../contract/parse.js";
import { requestSchemas } from "../request-schemas.js";
import type { RuleEvaluationRequest, RuleEvaluationResult } from "../../contract/service.js";
import { requireContext } from "../contexts/context-service.js";
import type { EngineContext } from "../engine-context.js";
import { runPass } from "../pipeline/stages/index.js";
import { ExpressionCache } from "../pipeline/stages/expression-cache.js";
import type { PassInput } from "../pipeline/types.js";
import { evaluateOnDocument } from "../../portable/document-evaluation.js";
import { assertCompilable, requireRule, ruleModels } from "./rule-service.js";

// Drafts change with every keystroke of a rule author: keep their compilations apart
// from the pipeline's cache of saved rules.
const draftCache = new ExpressionCache(100);

/** Keeps only the evidence a context had at `asOf` (records and contributions received by then). */
function asOfInput(input: PassInput, asOf: string): PassInput {
  const records = input.records.filter((r) => r.createdAt <= asOf);
  const live = new Set(records.map((r) => r.id));
  return { ...input, records, contributions: input.contributions.filter((c) => c.receivedAt <= asOf && live.has(c.recordId)) };
}

/** Dry-run evaluation of a draft or saved rule; nothing is written. */
export function createDraftEvaluation(ctx: EngineContext) {
  return {
    async evaluateRule(body: RuleEvaluationRequest): Promise<RuleEvaluationResult> {
      const { ruleId, contextId, data, asOf } = parseBody((await requestSchemas()).RuleEvaluationRequestSchema, body);
      if ((body.expression === undefined) === (ruleId === undefined)) throw errors.invalid("give exactly one of expression and ruleId");
      if ((contextId === undefined) === (data === undefined)) throw errors.invalid("give exactly one of contextId and data");
      if (asOf !== undefined && (contextId === undefined || Number.isNaN(Date.parse(asOf)))) {
        throw errors.invalid("asOf needs a contextId and an ISO 8601 time");
      }
      let expression = body.expression;
      if (ruleId !== undefined) {
        const rule = await requireRule(ctx, String(ruleId));
        expression = JSON.parse(rule.expression) as unknown;
      } else {
        // Against a context, the draft reads the workspace's models: its paths must name them.
        assertCompilable(expression, contextId === undefined ? undefined : await ruleModels(ctx));
      }
      if (data !== undefined) {
        if (data === null || typeof data !== "object" || Array.isArray(data)) throw errors.invalid("data must be a JSON object of dotted paths");
        return evaluateOnDocument(expression, data);
      }
      const context = await requireContext(ctx, String(contextId));
      const loaded = await ctx.pipeline.loadContextInput(context.key);
      if (!loaded) throw errors.notFound("context", String(contextId));
      let input = loaded.input;
      const when = asOf === undefined ? null : new Date(asOf).toISOString();
      if (when) input = asOfInput(input, when);
      const draft = { id: "draft", name: "draft", version: 1, expression };
      const output = runPass({ ...input, rules: [draft] }, { cache: draftCache });
      const ev = output.evaluations[0];
      return { contextId: context.id, asOf: when, outcome: ev.outcome, evaluationTrace: ev.trace };
    },
  };
}
