import { userInfo } from "node:os";
import { DdsError } from "../contract/errors.js";
import type { DdsService, WriteGroup } from "../contract/service.js";
import { createContextService } from "./contexts/context-service.js";
import { createDraftEvaluation } from "./decisions/draft-evaluation.js";
import { createEvaluationService } from "./decisions/evaluation-service.js";
import { createRuleRenames } from "./decisions/rule-rename.js";
import { createRuleService } from "./decisions/rule-service.js";
import { createEngineContext, type EngineContext } from "./engine-context.js";
import { createContributionService } from "./evidence/contribution-service.js";
import type { IngestDeps } from "./evidence/ingest.js";
import { createModelCache } from "./evidence/model-cache.js";
import { createRecordService } from "./evidence/record-service.js";
import { createFieldService } from "./models/field-service.js";
import { createModelService } from "./models/model-service.js";
import { createPipeline, type Pipeline, type PipelineOptions } from "./pipeline/worker.js";
import { createContextLinkService } from "./relationships/context-links.js";
import { createRelationshipService } from "./relationships/relationship-service.js";
import { ensureWorkspace, openStore, type Store } from "./store/db.js";
import { createEvidenceRepo } from "./store/evidence-repo.js";
import { createRelationshipRepo } from "./store/relationship-repo.js";
import { createReplayRepo } from "./store/replay-repo.js";
import { createRuleRepo } from "./store/rule-repo.js";
import { createWebhookOutbox, createWebhookService, withWebhookEvents } from "./webhooks/index.js";

/** Options of the local engine. */
export interface LocalEngineOptions {
  /** SQLite file (created on first use), or an already open store to share. */
  db: string | Store;
  /** Workspace to act in (local mode uses `default`). */
  workspace?: string;
  /** Who acts, written to `createdBy`. */
  actor?: string;
  /** Pipeline settings (lease, listeners). */
  pipeline?: PipelineOptions;
}

/** The local engine: the contract plus handles the server and tests use. */
export type LocalEngine = DdsService & {
  readonly ctx: EngineContext;
  readonly pipeline: Pipeline;
  /** The answer a keyed call stored (see ReplayRepo.expand), for the HTTP layer's replays. */
  expandReplay(requestHash: string, body: string): string;
  /** Always offered by the embedded engine (optional in the contract). */
  writeGroup(): WriteGroup;
};

function defaultActor(): string {
  try {
    return `local:${userInfo().username}`;
  } catch {
    return "local";
  }
}

/**
 * The whole service, in-process, on SQLite. The returned object implements the contract
 * exactly as the HTTP client does, so the CLI never knows which one it has.
 */
export function createLocalEngine(options: LocalEngineOptions): LocalEngine {
  const ownsStore = typeof options.db === "string";
  const store = typeof options.db === "string" ? openStore(options.db) : options.db;
  const workspace = options.workspace ?? "default";
  ensureWorkspace(store, workspace);
  const ctx = createEngineContext(store, workspace, options.actor ?? defaultActor());
  // Events are written to the outbox inside the transaction of the change that causes
  // them (pass commit, staleness, lifecycle move), so an event exists iff its change does.
  const outbox = createWebhookOutbox(store);
  const pipeline = createPipeline(store, withWebhookEvents(store, options.pipeline));
  const rules = createRuleRepo(store, workspace);
  const renames = createRuleRenames(ctx, rules);
  const markStale = (ids: Iterable<string>): void => {
    const mark = () => outbox.contextsStale(pipeline.repo.markStale(ids));
    // Callers normally hold a transaction already; without one, open it so the state
    // change and its `context.stale` deliveries still commit together.
    if (store.raw.inTransaction) mark();
    else store.tx(mark);
  };
  ctx.onDefinitionChange = (modelIds) => markStale(pipeline.repo.contextsWithModels(modelIds));
  ctx.onFieldRename = (model, old, next) => renames.field(model, old, next);
  ctx.onModelRename = (old, next) => renames.model(old, next);
  ctx.onContextTypeChange = (contextId) => markStale([contextId]);
  const statusListener = ctx.onContextStatusChange;
  ctx.onContextStatusChange = (context, from) => {
    statusListener(context, from);
    outbox.contextStatusChanged(workspace, context, from);
  };
  const deps: IngestDeps = {
    ctx,
    evidence: createEvidenceRepo(store, workspace),
    models: createModelCache(ctx),
    replay: createReplayRepo(store, workspace),
    markStale: (contextId) => markStale([contextId]),
  };
  return {
    ctx,
    pipeline,
    ...createModelService(ctx),
    ...createFieldService(ctx),
    ...createContextService(ctx),
    ...createContributionService(deps),
    ...createRecordService(deps),
    ...createRelationshipService(deps, createRelationshipRepo(store)),
    ...createContextLinkService(ctx),
    ...createRuleService(ctx, rules, () => markStale(pipeline.repo.contextsOfWorkspace(workspace))),
    ...createEvaluationService(ctx, rules),
    ...createDraftEvaluation(ctx, rules, pipeline.repo),
    ...createWebhookService(ctx),
    expandReplay: (requestHash, body) => deps.replay.expand(requestHash, body),
    runPipeline: (opts) => pipeline.drain(workspace, opts),
    pipelineStatus: async () => {
      const s = pipeline.repo.status(workspace);
      return { contexts: { resolved: s.resolved, stale: s.stale, computing: s.computing }, waiting: s.waiting, expiredClaims: s.expiredClaims };
    },
    // Inside the group every engine transaction is a savepoint of this one (store.tx
    // nests), so a failing call still undoes only itself.
    writeGroup: () => {
      if (store.raw.inTransaction) throw new Error("a write group is already open");
      store.raw.exec("BEGIN IMMEDIATE");
      return {
        commit: () => {
          // SQLite rolls a transaction back on its own after some errors (a full disk):
          // then nothing of the group is durable, and the caller must hear it.
          if (!store.raw.inTransaction) throw new DdsError("unavailable", "the write group was rolled back by the database; nothing of it was kept");
          store.raw.exec("COMMIT");
        },
        rollback: () => {
          if (store.raw.inTransaction) store.raw.exec("ROLLBACK");
        },
      };
    },
    close: async () => {
      if (store.raw.inTransaction) store.raw.exec("ROLLBACK");
      if (ownsStore) store.close();
    },
  };
}
