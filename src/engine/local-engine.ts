import { userInfo } from "node:os";
import { errors } from "../contract/errors.js";
import type { DdsService } from "../contract/service.js";
import { createContextService } from "./contexts/context-service.js";
import { createEngineContext, type EngineContext } from "./engine-context.js";
import { createFieldService } from "./models/field-service.js";
import { createModelService } from "./models/model-service.js";
import { ensureWorkspace, openStore, type Store } from "./store/db.js";

/** Options of the local engine. */
export interface LocalEngineOptions {
  /** SQLite file (created on first use), or an already open store to share. */
  db: string | Store;
  /** Workspace to act in (local mode uses `default`). */
  workspace?: string;
  /** Who acts, written to `createdBy`. */
  actor?: string;
}

function defaultActor(): string {
  try {
    return `local:${userInfo().username}`;
  } catch {
    return "local";
  }
}

const later = (what: string, issue: string) => async (): Promise<never> => {
  throw errors.notImplemented(what, issue);
};

/**
 * The whole service, in-process, on SQLite. The returned object implements the contract
 * exactly as the HTTP client does, so the CLI never knows which one it has.
 */
export function createLocalEngine(options: LocalEngineOptions): DdsService & { readonly ctx: EngineContext } {
  const ownsStore = typeof options.db === "string";
  const store = typeof options.db === "string" ? openStore(options.db) : options.db;
  const workspace = options.workspace ?? "default";
  ensureWorkspace(store, workspace);
  const ctx = createEngineContext(store, workspace, options.actor ?? defaultActor());
  const evidence = "evidence and the resolution pipeline";
  return {
    ctx,
    ...createModelService(ctx),
    ...createFieldService(ctx),
    ...createContextService(ctx),
    createContribution: later("contributions", evidence),
    bulkCreateContributions: later("bulk contributions", evidence),
    getContribution: later("contributions", evidence),
    listContributions: later("contributions", evidence),
    listRecords: later("records", evidence),
    getRecord: later("records", evidence),
    updateRecord: later("records", evidence),
    deleteRecord: later("records", evidence),
    bulkUpdateRecords: later("bulk record updates", evidence),
    bulkDeleteRecords: later("bulk record deletes", evidence),
    listRelationships: later("relationships", evidence),
    listRelatedRecords: later("relationships", evidence),
    removeRelationship: later("relationships", evidence),
    createRule: later("rules", evidence),
    listRules: later("rules", evidence),
    getRule: later("rules", evidence),
    updateRule: later("rules", evidence),
    setRuleStatus: later("rules", evidence),
    deleteRule: later("rules", evidence),
    listContextEvaluations: later("evaluations", evidence),
    getContextEvaluation: later("evaluations", evidence),
    listRuleEvaluations: later("evaluations", evidence),
    createWebhook: later("webhooks", "ddsctl serve"),
    listWebhooks: later("webhooks", "ddsctl serve"),
    getWebhook: later("webhooks", "ddsctl serve"),
    deleteWebhook: later("webhooks", "ddsctl serve"),
    listWebhookDeliveries: later("webhooks", "ddsctl serve"),
    runPipeline: async () => ({ passes: 0, resolved: [], pending: [] }),
    pipelineStatus: later("pipeline status", evidence),
    close: async () => {
      if (ownsStore) store.close();
    },
  };
}
