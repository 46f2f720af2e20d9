import type { Sql } from "./store/sql.js";
import type { Store } from "./store/store.js";
import type { SecretBox } from "./secrets/secret-box.js";
import { createContextRepo, type ContextRepo } from "./store/context-repo.js";
import { createEvidenceRepo, type EvidenceRepo } from "./store/evidence-repo.js";
import { createModelRepo, type ModelRepo } from "./store/model-repo.js";
import { createPipelineRepo, type PipelineRepo } from "./store/pipeline-repo.js";
import { createRelationshipRepo, type RelationshipRepo } from "./store/relationship-repo.js";
import { createRuleRepo, type RuleRepo } from "./store/rule-repo.js";
import { createWebhookRepo, type WebhookRepo } from "./store/webhook-repo.js";

/**
 * What engine code works with: the repositories of one workspace, bound to one executor
 * (the store, or an open transaction). Inside `tx`, use the scope it hands over: its
 * repositories run in the transaction.
 */
export interface Scope {
  readonly db: Sql;
  readonly workspace: string;
  /** Written to `createdBy`: `local:<os user>` locally, `token:<tokenId>` when served. */
  readonly actor: string;
  readonly models: ModelRepo;
  readonly contexts: ContextRepo;
  readonly evidence: EvidenceRepo;
  readonly rules: RuleRepo;
  readonly links: RelationshipRepo;
  readonly pipeline: PipelineRepo;
  readonly webhooks: WebhookRepo;
  readonly hooks: EngineHooks;
  /** Runs `fn` in a transaction (a savepoint inside one) with a scope bound to it. */
  tx<T>(fn: (s: Scope) => Promise<T>): Promise<T>;
}

/**
 * Reactions to changes, each called inside the transaction of the change with its scope
 * (so what they write commits or rolls back with it).
 */
export interface EngineHooks {
  /** Models, fields or relationships changed: the pipeline marks affected contexts stale. */
  onDefinitionChange(s: Scope, modelIds: string[]): Promise<void>;
  /** After a field rename, so rule expressions (`Model.field`) can follow it. */
  onFieldRename(s: Scope, model: { id: string; name: string }, oldName: string, newName: string): Promise<void>;
  /** After a model rename, so rule paths (`Old.field`) can follow it. */
  onModelRename(s: Scope, oldName: string, newName: string): Promise<void>;
  /** A context's type changed (rules may apply to it, or stop applying): its key. */
  onContextTypeChange(s: Scope, contextKey: number): Promise<void>;
  /** After a lifecycle move (reopened contexts resume processing; events fire). */
  onContextStatusChange(s: Scope, context: { id: string; status: string }, from: string): Promise<void>;
}

/** The engine-wide context: the store, and the scope of the workspace on the store's executor. */
export interface EngineContext extends Scope {
  readonly store: Store;
  /** The application's secrets (webhook signing secrets are sealed with it). */
  readonly secrets: SecretBox;
  /** The workspace's scope on another executor (an open transaction). */
  bind(db: Sql): Scope;
}

/** Told when a top-level transaction of the engine has committed or rolled back (a write group's journal). */
export interface TxListener {
  committed(): void;
  rolledBack(): void;
}

/** A scope of `workspace` on `db`; repositories are made on first use (a transaction uses a few). */
export function bindScope(db: Sql, workspace: string, actor: string, hooks: EngineHooks, before?: () => Promise<void> | undefined, listener?: () => TxListener | undefined): Scope {
  const made: Partial<Record<keyof Scope, unknown>> = {};
  const lazy = <K extends keyof Scope>(key: K, make: () => Scope[K]): Scope[K] => (made[key] ??= make()) as Scope[K];
  const scope: Scope = {
    db,
    workspace,
    actor,
    hooks,
    get models() {
      return lazy("models", () => createModelRepo(db, workspace));
    },
    get contexts() {
      return lazy("contexts", () => createContextRepo(db, workspace));
    },
    get evidence() {
      return lazy("evidence", () => createEvidenceRepo(db, workspace));
    },
    get rules() {
      return lazy("rules", () => createRuleRepo(db, workspace));
    },
    get links() {
      return lazy("links", () => createRelationshipRepo(db));
    },
    get pipeline() {
      return lazy("pipeline", () => createPipelineRepo(db));
    },
    get webhooks() {
      return lazy("webhooks", () => createWebhookRepo(db, workspace));
    },
    async tx(fn) {
      // Awaited only while pending: a transaction then starts within the call that asks for
      // it (a write group sees the call as running from its first moment).
      const pending = before?.();
      if (pending) await pending;
      const told = listener?.();
      if (!told) return db.tx((t) => fn(bindScope(t, workspace, actor, hooks)));
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await db.tx((t) => fn(bindScope(t, workspace, actor, hooks)));
      } catch (err) {
        told.rolledBack();
        throw err;
      }
      told.committed();
      return result;
    },
  };
  return scope;
}
