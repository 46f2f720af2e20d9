import { errors } from "../../contract/errors.js";
import type { ListQuery } from "../../contract/list-query.js";
import { parseBody } from "../../contract/parse.js";
import type { Context, Page } from "../../contract/schemas/index.js";
import { requestSchemas } from "../request-schemas.js";
import { newId } from "../../util/ids.js";
import { nowIso } from "../../util/time.js";
import type { EngineContext, Scope } from "../engine-context.js";
import type { ContextRow } from "../store/context-repo.js";
import { firstMoves } from "../../contract/lifecycle.js";
import { assertTransition, parseTargetStatus } from "../transitions.js";
import { toApiContext, toSummary } from "./context-view.js";

/**
 * Loads a live context of the workspace or throws 404. `lock` holds its row until the
 * transaction ends: writers of one context take turns (on PostgreSQL, across nodes).
 */
export async function requireContext(s: Scope, contextId: string, lock = false): Promise<ContextRow> {
  const row = await s.contexts.get(String(contextId), { lock });
  if (!row) throw errors.notFound("context", contextId);
  return row;
}

/** Context operations of the service. */
export function createContextService(ctx: EngineContext) {
  return {
    async createContext(body: unknown): Promise<Context> {
      // An absent body means "no properties"; an explicit JSON null is not an object (400).
      const input = parseBody((await requestSchemas()).ContextCreate, body === undefined ? {} : body);
      const now = nowIso();
      const row: ContextRow = {
        key: 0, // given by the store on insert
        id: newId(),
        workspace: ctx.workspace,
        name: input.name ?? null,
        type: input.type ?? null,
        metadata: input.metadata ?? {},
        status: "active",
        freshness: "resolved",
        evidenceVersion: 0,
        resolvedVersion: 0,
        claimedBy: null,
        leaseExpiresAt: null,
        claimToken: 0,
        createdAt: now,
        updatedAt: now,
        resolvedAt: null,
        deletedAt: null,
      };
      await ctx.tx((s) => s.contexts.insert(row));
      return toApiContext(row);
    },

    async listContexts(query?: ListQuery): Promise<Page<Context>> {
      const page = await ctx.contexts.list(query ?? {});
      return { data: page.rows.map(toApiContext), nextCursor: page.nextCursor, hasNextPage: page.hasNextPage };
    },

    async getContext(contextId: string, options?: { include?: string[] }): Promise<Context> {
      for (const inc of options?.include ?? []) {
        if (inc !== "summary") throw errors.invalid(`unknown include "${inc}"; contexts support include=summary`);
      }
      const row = await requireContext(ctx, contextId);
      const context = toApiContext(row);
      if (options?.include?.includes("summary")) context.summary = toSummary(row, await ctx.contexts.counts(row.id));
      return context;
    },

    async updateContext(contextId: string, body: unknown): Promise<Context> {
      if (body && typeof body === "object" && ("status" in body || "freshness" in body)) {
        throw errors.invalid("status and freshness are not changed by PATCH; use PUT /contexts/{contextId}/status/{targetStatus}");
      }
      const patch = parseBody((await requestSchemas()).ContextPatch, body);
      return ctx.tx(async (s) => {
        const row = await requireContext(s, contextId, true);
        const next: ContextRow = {
          ...row,
          name: patch.name === undefined ? row.name : patch.name,
          type: patch.type === undefined ? row.type : patch.type,
          metadata: patch.metadata === undefined ? row.metadata : (patch.metadata ?? {}),
          updatedAt: nowIso(),
        };
        await s.contexts.update(row.id, { name: next.name, type: next.type, metadata: next.metadata, updatedAt: next.updatedAt });
        if (next.type !== row.type) await s.hooks.onContextTypeChange(s, row.key);
        return toApiContext(next);
      });
    },

    async setContextStatus(contextId: string, target: string): Promise<Context> {
      const to = parseTargetStatus("context", target);
      return ctx.tx(async (s) => {
        const row = await requireContext(s, contextId, true);
        assertTransition("context", row.status, to);
        const next = { ...row, status: to as ContextRow["status"], updatedAt: nowIso() };
        await s.contexts.update(row.id, { status: next.status, updatedAt: next.updatedAt });
        await s.hooks.onContextStatusChange(s, next, row.status);
        return toApiContext(next);
      });
    },

    async deleteContext(contextId: string): Promise<void> {
      await ctx.tx(async (s) => {
        const row = await requireContext(s, contextId, true);
        if (row.status !== "archived") {
          throw errors.conflict("context_not_archived", `context ${row.id} is ${row.status}: ${firstMoves("context", row.status, "archived", "deleting it")}`);
        }
        await s.contexts.update(row.id, { deletedAt: nowIso() });
      });
    },
  };
}
