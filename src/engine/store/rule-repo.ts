import type { ListQuery } from "../../contract/list-query.js";
import { LIST_SPECS } from "../../contract/list-query.js";
import { listRows, type RowPage } from "./list-sql.js";
import type { LockOption } from "./model-repo.js";
import type { Sql } from "./sql.js";
import { WORKSPACE } from "./workspace-sql.js";

/** A rule row; `expression` is its JSON text as stored. */
export interface RuleRow {
  id: string;
  workspace: string;
  name: string;
  description: string;
  category: string;
  severity: string;
  expression: string;
  contextTypes: string[];
  status: "active" | "inactive";
  version: number;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

/** What an update of a rule may set. */
export type RuleSet = Partial<Omit<RuleRow, "id" | "workspace" | "createdAt">>;

/** An evaluation row joined with its rule and context. */
export interface EvaluationRow {
  id: string;
  ruleId: string;
  contextId: string;
  ruleName: string;
  category: string;
  severity: string;
  freshness: "resolved" | "stale" | "computing";
  outcome: boolean;
  trace: string;
  ruleVersion: number;
  currentVersion: number;
  computedAt: string;
}

const RULE_COLUMNS = `r.uuid AS id, r.name, r.description, r.category, r.severity, r.expression, r.context_types AS "contextTypes", r.status, r.version,
  r.created_at AS "createdAt", r.updated_at AS "updatedAt", r.deleted_at AS "deletedAt"`;
const EVALUATION_SELECT = `e.uuid AS id, r.uuid AS "ruleId", c.uuid AS "contextId", r.name AS "ruleName", r.category, r.severity,
  c.freshness, e.outcome, e.trace, e.rule_version AS "ruleVersion", r.version AS "currentVersion", e.computed_at AS "computedAt"`;
const EVALUATION_FROM = "evaluations e JOIN rules r ON r.id = e.rule_id JOIN contexts c ON c.id = e.context_id";

type RawRule = Omit<RuleRow, "contextTypes" | "workspace"> & { contextTypes: string };

const COLUMN_OF: Record<keyof RuleSet, string> = {
  name: "name",
  description: "description",
  category: "category",
  severity: "severity",
  expression: "expression",
  contextTypes: "context_types",
  status: "status",
  version: "version",
  updatedAt: "updated_at",
  deletedAt: "deleted_at",
};

/** Rules and evaluations, scoped to one workspace. */
export function createRuleRepo(db: Sql, workspace: string) {
  const d = db.dialect;
  const toRow = (r: RawRule): RuleRow => ({ ...r, workspace, version: Number(r.version), contextTypes: JSON.parse(r.contextTypes) as string[] });
  const some = async (where: string, params: unknown[], suffix = ""): Promise<RuleRow[]> =>
    (await db.all<RawRule>(`SELECT ${RULE_COLUMNS} FROM rules r WHERE r.workspace_id = ${WORKSPACE} AND ${where}${suffix}`, [workspace, ...params])).map(toRow);
  const evaluation = (e: EvaluationRow): EvaluationRow => ({ ...e, ruleVersion: Number(e.ruleVersion), currentVersion: Number(e.currentVersion) });
  return {
    async insert(row: RuleRow): Promise<void> {
      await db.run(
        `INSERT INTO rules (uuid, workspace_id, name, description, category, severity, expression, context_types, status, version, created_at, updated_at)
         VALUES (?, ${WORKSPACE}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          d.uuid(row.id),
          workspace,
          row.name,
          row.description,
          row.category,
          row.severity,
          row.expression,
          JSON.stringify(row.contextTypes),
          row.status,
          row.version,
          d.time(row.createdAt),
          d.time(row.updatedAt),
        ],
      );
    },
    /** A live rule; `lock` holds its row until the transaction ends (before a change). */
    async get(id: string, options: LockOption = {}): Promise<RuleRow | undefined> {
      return (await some("r.uuid = ? AND r.deleted_at IS NULL", [d.uuid(id)], options.lock ? ` ${d.forUpdate}` : ""))[0];
    },
    async getByName(name: string): Promise<RuleRow | undefined> {
      return (await some("r.name = ? AND r.deleted_at IS NULL", [name]))[0];
    },
    all(): Promise<RuleRow[]> {
      return some("r.deleted_at IS NULL", []);
    },
    async update(id: string, set: RuleSet): Promise<void> {
      const parts: string[] = [];
      const params: unknown[] = [];
      for (const [key, value] of Object.entries(set) as [keyof RuleSet, unknown][]) {
        if (value === undefined || !COLUMN_OF[key]) continue;
        parts.push(`${COLUMN_OF[key]} = ?`);
        if (key === "contextTypes") params.push(JSON.stringify(value));
        else if (key === "updatedAt" || key === "deletedAt") params.push(d.time(value as string | null));
        else params.push(value);
      }
      if (parts.length === 0) return;
      await db.run(`UPDATE rules SET ${parts.join(", ")} WHERE uuid = ?`, [...params, d.uuid(id)]);
    },
    async list(query: ListQuery): Promise<RowPage<RuleRow>> {
      const page = await listRows<RawRule>(
        db,
        {
          select: RULE_COLUMNS,
          from: "rules r",
          where: `r.workspace_id = ${WORKSPACE} AND r.deleted_at IS NULL`,
          params: [workspace],
          id: "r.uuid",
          columns: {
            name: { sql: "r.name", kind: "text" },
            category: { sql: "r.category", kind: "text" },
            severity: { sql: "r.severity", kind: "text" },
            status: { sql: "r.status", kind: "text" },
            version: { sql: "r.version", kind: "number" },
            createdAt: { sql: "r.created_at", kind: "time" },
            updatedAt: { sql: "r.updated_at", kind: "time" },
          },
        },
        LIST_SPECS.rules,
        query,
      );
      return { ...page, rows: page.rows.map(toRow) };
    },
    /** Evaluations, optionally narrowed to one context or one rule. */
    async listEvaluations(query: ListQuery, scope: { contextId?: string; ruleId?: string }): Promise<RowPage<EvaluationRow>> {
      const where = [`c.workspace_id = ${WORKSPACE}`, "r.deleted_at IS NULL", "r.status = 'active'", "c.deleted_at IS NULL"];
      const params: unknown[] = [workspace];
      if (scope.contextId) {
        where.push("c.uuid = ?");
        params.push(d.uuid(scope.contextId));
      }
      if (scope.ruleId) {
        where.push("r.uuid = ?");
        params.push(d.uuid(scope.ruleId));
      }
      const page = await listRows<EvaluationRow>(
        db,
        {
          select: EVALUATION_SELECT,
          from: EVALUATION_FROM,
          where: where.join(" AND "),
          params,
          id: "e.uuid",
          columns: {
            ruleId: { sql: "r.uuid", kind: "uuid" },
            contextId: { sql: "c.uuid", kind: "uuid" },
            freshness: { sql: "c.freshness", kind: "text" },
            outcome: { sql: "e.outcome", kind: "bool" },
            "rule.name": { sql: "r.name", kind: "text" },
            "rule.severity": { sql: "r.severity", kind: "text" },
            "rule.category": { sql: "r.category", kind: "text" },
            ruleVersion: { sql: "e.rule_version", kind: "number" },
            computedAt: { sql: "e.computed_at", kind: "time" },
          },
        },
        LIST_SPECS.evaluations,
        query,
      );
      return { ...page, rows: page.rows.map(evaluation) };
    },
    async getEvaluation(contextId: string, ruleId: string): Promise<EvaluationRow | undefined> {
      const row = await db.get<EvaluationRow>(
        `SELECT ${EVALUATION_SELECT} FROM ${EVALUATION_FROM}
        WHERE c.workspace_id = ${WORKSPACE} AND c.uuid = ? AND r.uuid = ? AND r.deleted_at IS NULL AND r.status = 'active'`,
        [workspace, d.uuid(contextId), d.uuid(ruleId)],
      );
      return row ? evaluation(row) : undefined;
    },
  };
}

/** The rule repository type. */
export type RuleRepo = ReturnType<typeof createRuleRepo>;
