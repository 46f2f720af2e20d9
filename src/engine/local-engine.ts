import { userInfo } from "node:os";
import type { DdsService } from "../contract/service.js";
import { createContextService } from "./contexts/context-service.js";
import { createDraftEvaluation } from "./decisions/draft-evaluation.js";
import { createEvaluationService } from "./decisions/evaluation-service.js";
import { ruleRenames } from "./decisions/rule-rename.js";
import { createRuleService } from "./decisions/rule-service.js";
import { bindScope, type EngineContext, type EngineHooks, type Scope } from "./engine-context.js";
import { createContributionService } from "./evidence/contribution-service.js";
import type { IngestDeps } from "./evidence/ingest.js";
import { createModelCache } from "./evidence/model-cache.js";
import { createRecordService } from "./evidence/record-service.js";
import { createFieldService } from "./models/field-service.js";
import { createModelService } from "./models/model-service.js";
import { createPipeline, type Pipeline, type PipelineOptions } from "./pipeline/worker.js";
import { GroupJournal } from "./pipeline/group-journal.js";
import { createContextLinkService } from "./relationships/context-links.js";
import { createRelationshipService } from "./relationships/relationship-service.js";
import { openSqliteDatabase, type OpenDatabaseOptions } from "./store/db.js";
// A cycle at load time only: openLocalEngine calls openApp when it runs.
import { openApp, type AppEnv } from "./app.js";
import { createReplayRepo } from "./store/idempotency-repo.js";
import { ensureWorkspace, type Store, type WriteGroup } from "./store/store.js";

export type { WriteGroup } from "./store/store.js";
import { secretBoxFor, type SecretBox } from "./secrets/secret-box.js";
import { createWebhookOutbox } from "./webhooks/webhook-outbox.js";
import { withWebhookEvents } from "./webhooks/webhook-pipeline.js";
import { createWebhookService } from "./webhooks/webhook-service.js";

/** Options of the local engine. */
export interface LocalEngineOptions {
  /** A SQLite file (created on first use), or an already open store to share. */
  db: string | Store;
  /** Workspace to act in (local mode uses `default`). */
  workspace?: string;
  /** Who acts, written to `createdBy`. */
  actor?: string;
  /** Pipeline settings (lease, listeners). */
  pipeline?: PipelineOptions;
  /** Close the store with the engine (default: when the engine opened it). */
  ownsStore?: boolean;
  /** The application's secrets (default: the key file beside a SQLite database, no environment read). */
  secrets?: SecretBox;
}

/** The local engine: the contract plus handles the server and tests use. */
export type LocalEngine = DdsService & {
  readonly ctx: EngineContext;
  readonly pipeline: Pipeline;
  /** The answer a keyed call stored (see ReplayRepo.expand), for the HTTP layer's replays. */
  expandReplay(answerForm: string, body: string): Promise<string>;
  /** Starts a write group (see WriteGroup); absent where the store has none. */
  writeGroup?(): WriteGroup;
};

/** `local:<os user>`: who acts when the CLI works on a database in-process. */
export function localActor(): string {
  try {
    return `local:${userInfo().username}`;
  } catch {
    return "local";
  }
}

/**
 * Opens an application on a database given by location (a SQLite path or a `postgres://`
 * URL) and hands over its engine for one workspace; closing the engine closes the
 * application. For one-off work (a test, a bench) that needs a single engine.
 */
export async function openLocalEngine(options: Omit<LocalEngineOptions, "db" | "ownsStore" | "secrets"> & { db: string; env?: AppEnv } & Omit<OpenDatabaseOptions, "env">): Promise<LocalEngine> {
  const app = await openApp({ ...options, location: options.db, env: options.env ?? {} });
  return { ...app.engine({ workspace: options.workspace ?? "default", actor: options.actor }), close: () => app.close() };
}

/**
 * The whole service, in-process, on one store (SQLite or PostgreSQL). The returned object
 * implements the contract exactly as the HTTP client does, so the CLI never knows which
 * one it has.
 */
export function createLocalEngine(options: LocalEngineOptions): LocalEngine {
  const ownsStore = options.ownsStore ?? typeof options.db === "string";
  const store = typeof options.db === "string" ? openSqliteDatabase(options.db) : options.db;
  const workspace = options.workspace ?? "default";
  const actor = options.actor ?? localActor();
  // Written once, before the first transaction of this engine (rows refer to it).
  let ready: Promise<void> | undefined;
  let written = false;
  const before = (): Promise<void> | undefined => {
    if (written) return undefined;
    return (ready ??= ensureWorkspace(store.sql, workspace).then(
      () => void (written = true),
      (err: unknown) => {
        ready = undefined;
        throw err;
      },
    ));
  };
  // Events are written to the outbox inside the transaction of the change that causes
  // them (pass commit, staleness, lifecycle move), so an event exists iff its change does.
  const outbox = createWebhookOutbox();
  // Where nobody subscribes to `context.stale` no caller needs to know which contexts
  // turned, and the store may mark them with the transaction's COMMIT (PostgreSQL), holding
  // their rows for no longer than that (see Store.markStaleAtCommit).
  const markStale = async (s: Scope, keys: Iterable<number>, records?: Iterable<number>, held?: boolean): Promise<void> => {
    if (store.markStaleAtCommit && !(await outbox.subscribed(s.db, workspace, "context.stale")) && store.markStaleAtCommit(s.db, keys, records, held)) return;
    await outbox.contextsStale(s.db, await store.markStale(s.db, keys, records));
  };
  /** Starts the read markStale makes first, so it rides with a writer's first reads. */
  const prepareStale = (s: Scope): void => {
    if (store.markStaleAtCommit) outbox.subscribed(s.db, workspace, "context.stale").catch(() => undefined);
  };
  const hooks: EngineHooks = {
    onDefinitionChange: async (s, modelIds) => markStale(s, await s.pipeline.contextsOfModelChange(workspace, modelIds)),
    onFieldRename: (s, model, old, next) => ruleRenames.field(s, model, old, next),
    onModelRename: (s, old, next) => ruleRenames.model(s, old, next),
    onContextTypeChange: (s, contextKey) => markStale(s, [contextKey]),
    onContextStatusChange: (s, context, from) => outbox.contextStatusChanged(s.db, workspace, context, from),
  };
  /** The open write group's journal (see GroupJournal): every engine transaction's writes are told to it once committed. */
  let journal: GroupJournal | undefined;
  const ctx: EngineContext = {
    ...bindScope(store.sql, workspace, actor, hooks, before, () => {
      // The journal of the group the transaction runs in, even if the group ends meanwhile.
      const j = journal;
      return j ? { committed: () => j.accept(), rolledBack: () => j.discard() } : undefined;
    }),
    store,
    secrets: options.secrets ?? secretBoxFor(store, {}),
    bind: (db) => bindScope(db, workspace, actor, hooks),
  };
  const pipeline = createPipeline(store, withWebhookEvents(options.pipeline));
  const deps: IngestDeps = {
    models: createModelCache(),
    replay: createReplayRepo(workspace),
    ingest: store.ingest,
    markStale,
    prepareStale,
    journal: () => journal,
  };
  const writeGroup = store.writeGroup?.bind(store);
  return {
    ctx,
    pipeline,
    ...createModelService(ctx),
    ...createFieldService(ctx),
    ...createContextService(ctx),
    ...createContributionService(ctx, deps),
    ...createRecordService(ctx, deps),
    ...createRelationshipService(ctx, deps),
    ...createContextLinkService(ctx),
    ...createRuleService(ctx, async (s) => markStale(s, await s.pipeline.contextsOfWorkspace(workspace))),
    ...createEvaluationService(ctx),
    ...createDraftEvaluation(ctx),
    ...createWebhookService(ctx),
    expandReplay: (answerForm, body) => deps.replay.expand(store.sql, answerForm, body),
    runPipeline: (opts) => pipeline.drain(workspace, opts),
    pipelineStatus: async () => {
      const s = await pipeline.repo.status(workspace);
      return { contexts: { resolved: s.resolved, stale: s.stale, computing: s.computing }, waiting: s.waiting, expiredClaims: s.expiredClaims };
    },
    // The in-process engine offers write groups (a local import commits a few hundred
    // milliseconds of batches at once); inside one every engine transaction is a savepoint,
    // so a failing call still undoes only itself.
    ...(writeGroup
      ? {
          writeGroup: (): WriteGroup => {
            const group = writeGroup();
            const own = (journal = new GroupJournal(group.rows !== "held"));
            const close = () => {
              if (journal === own) journal = undefined;
            };
            return {
              // Loaded means resolved: the contexts the group wrote into are resolved in it,
              // from its journal, and committed with the evidence.
              // A pass that fails there leaves its context stale, for the drain after the import
              // (which reports it): the evidence is committed all the same.
              commit: async () => {
                close();
                const passes = async () => {
                  const resolved = await pipeline.resolveGroup(own).catch(() => new Set<number>());
                  // Records written clean for a pass that did not resolve their context are
                  // stamped with its version, for the next pass to read them.
                  const stamp = own.cleanRecords((contextKey) => !resolved.has(contextKey));
                  if (stamp.length > 0) await store.markStale(store.sql, [], stamp);
                };
                if (group.runPasses) await group.runPasses(passes);
                else await passes();
                await group.commit();
              },
              rollback: () => {
                close();
                const done = group.rollback();
                // The workspace row may have been written inside the group: write it again.
                ready = undefined;
                written = false;
                return done;
              },
            };
          },
        }
      : {}),
    close: async () => {
      if (ownsStore) await store.close();
    },
  };
}
