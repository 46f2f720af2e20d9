import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import { parseBody } from "../../contract/parse.js";
import type { Page, Rule } from "../../contract/schemas/index.js";
import { requestSchemas } from "../request-schemas.js";
import { newId } from "../../util/ids.js";
import { nowIso } from "../../util/time.js";
import type { EngineContext, Scope } from "../engine-context.js";
import { validateRuleExpression } from "../../portable/json-logic/index.js";
import type { RulePathModel } from "../../portable/rule-paths.js";
import { assertRulePaths } from "../../portable/workbench/rules-eval/local-eval.js";
import type { RuleRow } from "../store/rule-repo.js";
import { assertTransition, parseTargetStatus } from "../transitions.js";
import { toApiRule } from "./rule-view.js";

/**
 * Rejects (422 compile_failed) an expression that cannot compile, listing every problem;
 * given the workspace's models, also one whose paths name nothing they have (a field no
 * model has, a model that does not exist), each with what the model does have.
 */
export function assertCompilable(expression: unknown, models?: readonly RulePathModel[]): void {
  const problems = validateRuleExpression(expression).map((p) => ({ path: p.path ? `expression.${p.path}` : "expression", message: p.message }));
  if (problems.length > 0) throw errors.compile(`expression does not compile: ${problems[0].message}`, problems);
  if (models !== undefined) assertRulePaths(expression, models);
}

/** The workspace's live models, as rule paths are checked against them. */
export async function ruleModels(s: Scope): Promise<RulePathModel[]> {
  return (await s.models.all()).map((m) => ({ modelId: m.id, name: m.name, fields: m.fields, relationships: m.relationships }));
}

/** Loads a live rule of the workspace or throws 404; `lock` holds its row for a change. */
export async function requireRule(s: Scope, ruleId: string, lock = false): Promise<RuleRow> {
  const row = await s.rules.get(String(ruleId), { lock });
  if (!row) throw errors.notFound("rule", ruleId);
  return row;
}

/** Rule operations of the service. Every change marks the workspace's contexts stale. */
export function createRuleService(ctx: EngineContext, rulesChanged: (s: Scope) => Promise<void>) {
  return {
    async createRule(body: unknown): Promise<Rule> {
      const input = parseBody((await requestSchemas()).RuleCreate, body);
      assertCompilable(input.expression);
      return ctx.tx(async (s) => {
        assertRulePaths(input.expression, await ruleModels(s));
        if (await s.rules.getByName(input.name)) throw errors.nameTaken("rule", input.name);
        const now = nowIso();
        const row: RuleRow = {
          id: newId(),
          workspace: ctx.workspace,
          name: input.name,
          description: input.description ?? "",
          category: input.category,
          severity: input.severity,
          expression: JSON.stringify(input.expression),
          contextTypes: input.contextTypes ?? [],
          status: input.status ?? "active",
          version: 1,
          createdAt: now,
          updatedAt: now,
          deletedAt: null,
        };
        await s.rules.insert(row);
        if (row.status === "active") await rulesChanged(s);
        return toApiRule(row);
      });
    },
    async listRules(query?: ListQuery): Promise<Page<Rule>> {
      const page = await ctx.rules.list(query ?? {});
      return { data: page.rows.map(toApiRule), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },
    async getRule(ruleId: string): Promise<Rule> {
      return toApiRule(await requireRule(ctx, ruleId));
    },
    async updateRule(ruleId: string, body: unknown): Promise<Rule> {
      if (body && typeof body === "object" && ("status" in body || "version" in body)) {
        throw errors.invalid("status and version are not changed by PATCH; use PUT /rules/{ruleId}/status/{active|inactive}");
      }
      const patch = parseBody((await requestSchemas()).RulePatch, body);
      if (patch.expression !== undefined) assertCompilable(patch.expression);
      return ctx.tx(async (s) => {
        const row = await requireRule(s, ruleId, true);
        if (patch.expression !== undefined) assertRulePaths(patch.expression, await ruleModels(s));
        if (patch.name !== undefined && patch.name !== row.name && (await s.rules.getByName(patch.name))) throw errors.nameTaken("rule", patch.name);
        const expression = patch.expression === undefined ? row.expression : JSON.stringify(patch.expression);
        const next: RuleRow = {
          ...row,
          name: patch.name ?? row.name,
          description: patch.description === undefined ? row.description : (patch.description ?? ""),
          category: patch.category ?? row.category,
          severity: patch.severity ?? row.severity,
          contextTypes: patch.contextTypes ?? row.contextTypes,
          expression,
          version: expression !== row.expression ? row.version + 1 : row.version,
          updatedAt: nowIso(),
        };
        const { id: _id, workspace: _w, createdAt: _c, ...set } = next;
        await s.rules.update(row.id, set);
        if (next.status === "active") await rulesChanged(s);
        return toApiRule(next);
      });
    },
    async setRuleStatus(ruleId: string, target: string): Promise<Rule> {
      const to = parseTargetStatus("rule", target);
      return ctx.tx(async (s) => {
        const row = await requireRule(s, ruleId, true);
        assertTransition("rule", row.status, to);
        const next = { ...row, status: to as RuleRow["status"], updatedAt: nowIso() };
        await s.rules.update(row.id, { status: next.status, updatedAt: next.updatedAt });
        await rulesChanged(s);
        return toApiRule(next);
      });
    },
    async deleteRule(ruleId: string): Promise<void> {
      await ctx.tx(async (s) => {
        const row = await requireRule(s, ruleId, true);
        await s.rules.update(row.id, { deletedAt: nowIso() });
        if (row.status === "active") await rulesChanged(s);
      });
    },
  };
}
