import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import { listRows, type RowPage } from "./list-sql.js";
import type { LockOption } from "./model-repo.js";
import { decodeRow, insertRow, setClause } from "./row-codec.js";
import { rules } from "./schema.js";
import type { Sql } from "./sql.js";

/** A rule row. */
export type RuleRow = typeof rules.$inferSelect;

/** An evaluation row joined with its rule and context. */
export interface EvaluationRow {
  id: string;
  ruleId: string;
  contextId: string;
  ruleName: string;
  category: string;
  severity: string;
  freshness: "resolved" | "stale" | "computing";
  outcome: number;
  trace: string;
  ruleVersion: number;
  currentVersion: number;
  computedAt: string;
}

const EVALUATION_SELECT = `e.id, e.rule_id AS "ruleId", e.context_id AS "contextId", r.name AS "ruleName", r.category, r.severity,
  c.freshness, e.outcome, e.trace, e.rule_version AS "ruleVersion", r.version AS "currentVersion", e.computed_at AS "computedAt"`;

/** Rules and evaluations, scoped to one workspace. */
export function createRuleRepo(db: Sql, workspace: string) {
  const some = async (where: string, params: unknown[], suffix = ""): Promise<RuleRow[]> =>
    (await db.all(`SELECT * FROM rules WHERE ${where}${suffix}`, params)).map((r) => decodeRow<RuleRow>(rules, r));
  return {
    async insert(row: RuleRow): Promise<void> {
      const { sql, params } = insertRow(rules, row);
      await db.run(sql, params);
    },
    /** A live rule; `lock` holds its row until the transaction ends (before a change). */
    async get(id: string, options: LockOption = {}): Promise<RuleRow | undefined> {
      return (await some("workspace = ? AND id = ? AND deleted_at IS NULL", [workspace, id.toLowerCase()], options.lock ? ` ${db.dialect.forUpdate}` : ""))[0];
    },
    async getByName(name: string): Promise<RuleRow | undefined> {
      return (await some("workspace = ? AND name = ? AND deleted_at IS NULL", [workspace, name]))[0];
    },
    all(): Promise<RuleRow[]> {
      return some("workspace = ? AND deleted_at IS NULL", [workspace]);
    },
    async update(id: string, set: Partial<Omit<RuleRow, "id" | "workspace" | "createdAt">>): Promise<void> {
      const clause = setClause(rules, set);
      await db.run(`UPDATE rules SET ${clause.sql} WHERE id = ?`, [...clause.params, id]);
    },
    async list(query: ListQuery): Promise<RowPage<RuleRow>> {
      const page = await listRows<{ id: string }>(
        db,
        {
          select: "r.id",
          from: "rules r",
          where: "r.workspace = ? AND r.deleted_at IS NULL",
          params: [workspace],
          id: "r.id",
          columns: {
            name: { sql: "r.name", kind: "text" },
            category: { sql: "r.category", kind: "text" },
            severity: { sql: "r.severity", kind: "text" },
            status: { sql: "r.status", kind: "text" },
            version: { sql: "r.version", kind: "number" },
            createdAt: { sql: "r.created_at", kind: "text" },
            updatedAt: { sql: "r.updated_at", kind: "text" },
          },
        },
        LIST_SPECS.rules,
        query,
      );
      // One query for the page's rules, in page order.
      const ids = page.rows.map((r) => r.id);
      const found = ids.length === 0 ? [] : await some(`id IN (${ids.map(() => "?").join(", ")})`, ids);
      const byId = new Map(found.map((r) => [r.id, r]));
      return { ...page, rows: ids.map((id) => byId.get(id)!) };
    },
    /** Evaluations, optionally narrowed to one context or one rule. */
    listEvaluations(query: ListQuery, scope: { contextId?: string; ruleId?: string }): Promise<RowPage<EvaluationRow>> {
      const where = ["e.workspace = ?", "r.deleted_at IS NULL", "r.status = 'active'", "c.deleted_at IS NULL"];
      const params: unknown[] = [workspace];
      if (scope.contextId) {
        where.push("e.context_id = ?");
        params.push(scope.contextId);
      }
      if (scope.ruleId) {
        where.push("e.rule_id = ?");
        params.push(scope.ruleId);
      }
      return listRows<EvaluationRow>(
        db,
        {
          select: EVALUATION_SELECT,
          from: "evaluations e JOIN rules r ON r.id = e.rule_id JOIN contexts c ON c.id = e.context_id",
          where: where.join(" AND "),
          params,
          id: "e.id",
          columns: {
            ruleId: { sql: "e.rule_id", kind: "text" },
            contextId: { sql: "e.context_id", kind: "text" },
            freshness: { sql: "c.freshness", kind: "text" },
            outcome: { sql: "e.outcome", kind: "bool" },
            "rule.name": { sql: "r.name", kind: "text" },
            "rule.severity": { sql: "r.severity", kind: "text" },
            "rule.category": { sql: "r.category", kind: "text" },
            ruleVersion: { sql: "e.rule_version", kind: "number" },
            computedAt: { sql: "e.computed_at", kind: "text" },
          },
        },
        LIST_SPECS.evaluations,
        query,
      );
    },
    getEvaluation(contextId: string, ruleId: string): Promise<EvaluationRow | undefined> {
      return db.get<EvaluationRow>(
        `SELECT ${EVALUATION_SELECT} FROM evaluations e JOIN rules r ON r.id = e.rule_id JOIN contexts c ON c.id = e.context_id
        WHERE e.workspace = ? AND e.context_id = ? AND e.rule_id = ? AND r.deleted_at IS NULL AND r.status = 'active'`,
        [workspace, contextId, ruleId],
      );
    },
  };
}

/** The rule repository type. */
export type RuleRepo = ReturnType<typeof createRuleRepo>;
