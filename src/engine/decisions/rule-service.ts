import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import { parseBody } from "../../contract/parse.js";
import { RuleCreate, RulePatch, type Page, type Rule } from "../../contract/schemas/index.js";
import { newId } from "../../util/ids.js";
import { nowIso } from "../../util/time.js";
import type { EngineContext } from "../engine-context.js";
import { validateRuleExpression } from "../rules/index.js";
import type { RuleRepo, RuleRow } from "../store/rule-repo.js";
import { assertTransition, parseTargetStatus } from "../transitions.js";
import { toApiRule } from "./rule-view.js";

/** Rejects (422 compile_failed) an expression that cannot compile, listing every problem. */
export function assertCompilable(expression: unknown, path = "expression"): void {
  const problems = validateRuleExpression(expression).map((p) => ({ path: p.path ? `${path}.${p.path}` : path, message: p.message }));
  if (problems.length > 0) throw errors.compile(`expression does not compile: ${problems[0].message}`, problems);
}

/** Rule operations of the service. Every change marks the workspace's contexts stale. */
export function createRuleService(ctx: EngineContext, rules: RuleRepo, rulesChanged: () => void) {
  const requireRule = (ruleId: string): RuleRow => {
    const row = rules.get(String(ruleId));
    if (!row) throw errors.notFound("rule", ruleId);
    return row;
  };
  return {
    async createRule(body: unknown): Promise<Rule> {
      const input = parseBody(RuleCreate, body);
      assertCompilable(input.expression);
      return ctx.store.tx(() => {
        if (rules.getByName(input.name)) throw errors.nameTaken("rule", input.name);
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
        rules.insert(row);
        if (row.status === "active") rulesChanged();
        return toApiRule(row);
      });
    },
    async listRules(query?: ListQuery): Promise<Page<Rule>> {
      const page = rules.list(query ?? {});
      return { data: page.rows.map(toApiRule), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },
    async getRule(ruleId: string): Promise<Rule> {
      return toApiRule(requireRule(ruleId));
    },
    async updateRule(ruleId: string, body: unknown): Promise<Rule> {
      if (body && typeof body === "object" && ("status" in body || "version" in body)) {
        throw errors.invalid("status and version are not changed by PATCH; use PUT /rules/{ruleId}/status/{active|inactive}");
      }
      const patch = parseBody(RulePatch, body);
      if (patch.expression !== undefined) assertCompilable(patch.expression);
      return ctx.store.tx(() => {
        const row = requireRule(ruleId);
        if (patch.name !== undefined && patch.name !== row.name && rules.getByName(patch.name)) throw errors.nameTaken("rule", patch.name);
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
        rules.update(row.id, set);
        if (next.status === "active") rulesChanged();
        return toApiRule(next);
      });
    },
    async setRuleStatus(ruleId: string, target: string): Promise<Rule> {
      const to = parseTargetStatus("rule", target);
      return ctx.store.tx(() => {
        const row = requireRule(ruleId);
        assertTransition("rule", row.status, to);
        const next = { ...row, status: to as RuleRow["status"], updatedAt: nowIso() };
        rules.update(row.id, { status: next.status, updatedAt: next.updatedAt });
        rulesChanged();
        return toApiRule(next);
      });
    },
    async deleteRule(ruleId: string): Promise<void> {
      ctx.store.tx(() => {
        const row = requireRule(ruleId);
        rules.update(row.id, { deletedAt: nowIso() });
        if (row.status === "active") rulesChanged();
      });
    },
  };
}
