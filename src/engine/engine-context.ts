import type { Store } from "./store/db.js";
import { createModelRepo, type ModelRepo } from "./store/model-repo.js";
import { createContextRepo, type ContextRepo } from "./store/context-repo.js";

/**
 * What every engine service shares: the store, the workspace it acts in, who acts, and
 * the repositories bound to that workspace.
 */
export interface EngineContext {
  store: Store;
  workspace: string;
  /** Written to `createdBy`: `local:<os user>` locally, `token:<tokenId>` when served. */
  actor: string;
  models: ModelRepo;
  contexts: ContextRepo;
  /**
   * Called inside the transaction of any model, field or relationship change, so the
   * pipeline can mark the affected contexts stale.
   */
  onDefinitionChange(modelIds: string[]): void;
  /** Called after a field rename, so rule expressions (`Model.field`) can follow it. */
  onFieldRename(model: { id: string; name: string }, oldName: string, newName: string): void;
  /** Called after a model rename, so rule paths (`Old.field`) can follow it. */
  onModelRename(oldName: string, newName: string): void;
  /** Called when a context's type changes (rules may apply to it, or stop applying). */
  onContextTypeChange(contextId: string): void;
  /** Called after a lifecycle move (reopened contexts resume processing; events fire). */
  onContextStatusChange(context: { id: string; status: string }, from: string): void;
}

/** Builds the shared engine context for one workspace. */
export function createEngineContext(store: Store, workspace: string, actor: string): EngineContext {
  return {
    store,
    workspace,
    actor,
    models: createModelRepo(store, workspace),
    contexts: createContextRepo(store, workspace),
    onDefinitionChange: () => {},
    onFieldRename: () => {},
    onModelRename: () => {},
    onContextTypeChange: () => {},
    onContextStatusChange: () => {},
  };
}
