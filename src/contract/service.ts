import type { ListQuery } from "./list-query.js";
import type {
  BulkResponse,
  Context,
  ContextCreate,
  ContextPatch,
  ContextStatus,
  Contribution,
  ContributionCreate,
  DdsRecord,
  Evaluation,
  EvaluationTrace,
  Field,
  FieldInput,
  Model,
  ModelCreate,
  ModelList,
  ModelPatch,
  ModelStatus,
  Page,
  RecordDeleteItem,
  RecordInclude,
  RecordUpdate,
  RecordUpdateItem,
  RelationshipLink,
  ContextLink,
  Rule,
  RuleCreate,
  RulePatch,
  RuleStatus,
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  WebhookRecover,
  WebhookRecoverResult,
  WebhookStatus,
} from "./schemas/index.js";

/** Counts of contexts per freshness (and per business status), for `pipeline status`. */
export interface PipelineStatus {
  /** Contexts by freshness; `stale` only active ones (a stale completed or archived context is `waiting`). */
  contexts: { resolved: number; stale: number; computing: number };
  /**
   * Stale contexts the pipeline does not process: completed (until reopened) or archived.
   * With `contexts`, every context is counted once.
   */
  waiting: number;
  /** Among `computing`: claims whose lease has expired (a worker died mid-pass); they are claimable again. */
  expiredClaims: number;
}

/** What a pipeline drain did. */
export interface PipelineRunResult {
  passes: number;
  resolved: string[];
  /** Contexts still not resolved when the drain stopped (timeout, or not processable). */
  pending: string[];
}

/** How far a drain has come: contexts resolved so far, of how many (when known). */
export interface PipelineProgress {
  resolved: number;
  total?: number;
}

/** Options of a pipeline drain. */
export interface PipelineRunOptions {
  /** Only these contexts (default: every stale, active context). */
  contextIds?: string[];
  /** Give up after this many milliseconds (default: no limit in local mode). */
  timeoutMs?: number;
  /**
   * Told as contexts resolve (after each pass locally, after each poll remotely), so a
   * long wait can show progress. Not part of the REST API: the caller's own process.
   */
  onProgress?(progress: PipelineProgress): void;
}

/**
 * Options of a write. `idempotencyKey` makes the call exactly-once: a repeat with the same
 * key (within the workspace, for 24 h) returns the first result without reprocessing.
 * Locally the key is recorded in the same transaction as the write, so a process killed
 * at any moment leaves either both or neither; remotely it is the Idempotency-Key header.
 */
export interface WriteOptions {
  idempotencyKey?: string;
}

/**
 * A dry-run evaluation: a rule expression (a draft, or a saved rule by id) evaluated
 * without saving anything, against a stored context (optionally as it stood at `asOf`,
 * counting only evidence received by then) or against a document of dotted paths.
 */
export interface RuleEvaluationRequest {
  expression?: unknown;
  ruleId?: string;
  contextId?: string;
  data?: Record<string, unknown>;
  asOf?: string;
}

/** What a dry-run evaluation gives: the outcome and the full trace. */
export interface RuleEvaluationResult {
  contextId: string | null;
  asOf: string | null;
  outcome: boolean;
  evaluationTrace: EvaluationTrace;
}

/**
 * The whole service of the interface document and docs/. Implemented by the local
 * engine (`src/engine`) and by the HTTP client (`src/client`); the server adapts REST to
 * it. Every method validates its input and throws DdsError on failure.
 */
export interface DdsService {
  // Models
  createModel(body: ModelCreate): Promise<Model>;
  listModels(query?: ListQuery): Promise<ModelList>;
  getModel(modelId: string): Promise<Model>;
  updateModel(modelId: string, patch: ModelPatch): Promise<Model>;
  setModelStatus(modelId: string, status: ModelStatus | string): Promise<Model>;
  deleteModel(modelId: string): Promise<void>;

  // Fields, scoped by model and field name
  createField(modelId: string, body: FieldInput): Promise<Field>;
  listModelFields(modelId: string): Promise<Page<Field>>;
  getModelField(modelId: string, fieldName: string): Promise<Field>;
  replaceModelField(modelId: string, fieldName: string, body: FieldInput): Promise<Field>;
  deleteModelField(modelId: string, fieldName: string): Promise<void>;
  // Fields, global by fieldId
  listFields(query?: ListQuery): Promise<Page<Field>>;
  getField(fieldId: string): Promise<Field>;
  replaceField(fieldId: string, body: FieldInput): Promise<Field>;
  deleteField(fieldId: string): Promise<void>;

  // Contexts
  createContext(body: ContextCreate): Promise<Context>;
  listContexts(query?: ListQuery): Promise<Page<Context>>;
  getContext(contextId: string, options?: { include?: "summary"[] }): Promise<Context>;
  updateContext(contextId: string, patch: ContextPatch): Promise<Context>;
  setContextStatus(contextId: string, status: ContextStatus | string): Promise<Context>;
  deleteContext(contextId: string): Promise<void>;

  // Contributions
  createContribution(body: ContributionCreate): Promise<Contribution>;
  bulkCreateContributions(body: { items: unknown[] }, options?: WriteOptions): Promise<BulkResponse>;
  getContribution(contributionId: string): Promise<Contribution>;
  listContributions(query?: ListQuery): Promise<Page<Contribution>>;

  // Records
  listRecords(query?: ListQuery): Promise<Page<DdsRecord>>;
  getRecord(recordId: string, options?: { include?: RecordInclude[] }): Promise<DdsRecord>;
  updateRecord(recordId: string, body: RecordUpdate): Promise<DdsRecord>;
  deleteRecord(recordId: string): Promise<void>;
  bulkUpdateRecords(body: { items: RecordUpdateItem[] | unknown[] }, options?: WriteOptions): Promise<BulkResponse>;
  bulkDeleteRecords(body: { items: RecordDeleteItem[] | unknown[] }, options?: WriteOptions): Promise<BulkResponse>;

  // Relationships (read and remove only)
  listRelationships(recordId: string): Promise<{ data: RelationshipLink[] }>;
  listRelatedRecords(recordId: string, relationshipName: string): Promise<{ data: DdsRecord[] }>;
  removeRelationship(recordId: string, relationshipName: string, targetRecordId: string): Promise<void>;
  /** Every link between the context's records, removed ones included (the case's record graph). */
  listContextRelationships(contextId: string): Promise<{ data: ContextLink[] }>;

  // Rules
  createRule(body: RuleCreate): Promise<Rule>;
  listRules(query?: ListQuery): Promise<Page<Rule>>;
  getRule(ruleId: string): Promise<Rule>;
  updateRule(ruleId: string, patch: RulePatch): Promise<Rule>;
  setRuleStatus(ruleId: string, status: RuleStatus | string): Promise<Rule>;
  deleteRule(ruleId: string): Promise<void>;

  // Evaluations (read-only)
  listContextEvaluations(contextId: string, query?: ListQuery): Promise<Page<Evaluation>>;
  getContextEvaluation(contextId: string, ruleId: string): Promise<Evaluation>;
  listRuleEvaluations(ruleId: string, query?: ListQuery): Promise<Page<Evaluation>>;

  /** Dry-run evaluation (`POST /rules/evaluate`): nothing is stored. */
  evaluateRule(body: RuleEvaluationRequest): Promise<RuleEvaluationResult>;

  // Webhooks
  createWebhook(body: WebhookCreate): Promise<Webhook>;
  listWebhooks(query?: ListQuery): Promise<Page<Webhook>>;
  getWebhook(webhookId: string): Promise<Webhook>;
  deleteWebhook(webhookId: string): Promise<void>;
  /** Enables a webhook (after it was disabled by request or for failing) or disables it. */
  setWebhookStatus(webhookId: string, status: WebhookStatus | string): Promise<Webhook>;
  listWebhookDeliveries(webhookId: string, query?: ListQuery): Promise<Page<WebhookDelivery>>;
  /**
   * Sends one delivery again, with its `webhook-id`, on a fresh retry schedule. A pending
   * delivery is left as it is (it is already owed): never two of one message at once.
   */
  redeliverWebhookDelivery(webhookId: string, deliveryId: string): Promise<WebhookDelivery>;
  /** Sends every failed delivery of a webhook created in [since, until) again, as redeliver does. */
  recoverWebhookDeliveries(webhookId: string, body: WebhookRecover): Promise<WebhookRecoverResult>;

  // Pipeline (not a REST resource: local mode drains it, remote mode waits for it)
  runPipeline(options?: PipelineRunOptions): Promise<PipelineRunResult>;
  pipelineStatus(): Promise<PipelineStatus>;

  /** Releases connections and file handles. */
  close(): Promise<void>;
}
