import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * drizzle's view of the tables both stores create (`sqlite/migrations/`,
 * `postgres/migrations/`): the row types and the value encodings (JSON text, 0/1 booleans)
 * the repositories share. A test compares it with each migrated schema, so a column added
 * to one and not the others fails CI.
 */
const audit = {
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
  deletedAt: text("deleted_at"),
};

export const workspaces = sqliteTable("workspaces", {
  name: text("name").primaryKey(),
  createdAt: text("created_at").notNull(),
});

export const models = sqliteTable("models", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  status: text("status", { enum: ["draft", "active", "archived"] }).notNull(),
  version: integer("version").notNull().default(1),
  identity: text("identity", { mode: "json" }).$type<string[]>().notNull(),
  relationships: text("relationships", { mode: "json" }).$type<unknown[]>().notNull(),
  compiled: text("compiled", { mode: "json" }).$type<unknown>(),
  ...audit,
});

export const fields = sqliteTable("fields", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  modelId: text("model_id").notNull(),
  name: text("name").notNull(),
  type: text("type").notNull(),
  description: text("description").notNull().default(""),
  required: integer("required", { mode: "boolean" }).notNull().default(false),
  validation: text("validation", { mode: "json" }).$type<Record<string, unknown> | null>(),
  resolution: text("resolution", { mode: "json" }).$type<Record<string, unknown> | null>(),
  computed: text("computed", { mode: "json" }).$type<{ expression: unknown } | null>(),
  position: integer("position").notNull(),
  ...audit,
});

export const contexts = sqliteTable("contexts", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  name: text("name"),
  type: text("type"),
  metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  status: text("status", { enum: ["active", "completed", "archived"] }).notNull(),
  freshness: text("freshness", { enum: ["resolved", "stale", "computing"] }).notNull(),
  evidenceVersion: integer("evidence_version").notNull().default(0),
  resolvedVersion: integer("resolved_version").notNull().default(0),
  claimedBy: text("claimed_by"),
  leaseExpiresAt: integer("lease_expires_at"),
  claimToken: integer("claim_token").notNull().default(0),
  resolvedAt: text("resolved_at"),
  ...audit,
});

export const records = sqliteTable("records", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  contextId: text("context_id").notNull(),
  modelId: text("model_id").notNull(),
  identityKey: text("identity_key"),
  data: text("data").notNull(),
  sha256: text("sha256").notNull(),
  issues: text("issues").notNull(),
  lineage: text("lineage").notNull(),
  createdBy: text("created_by").notNull(),
  ...audit,
});

export const contributions = sqliteTable("contributions", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  contextId: text("context_id").notNull(),
  modelId: text("model_id").notNull(),
  recordId: text("record_id").notNull(),
  sourceId: text("source_id").notNull(),
  sourceType: text("source_type").notNull(),
  data: text("data").notNull(),
  fieldConfidences: text("field_confidences").notNull(),
  status: text("status", { enum: ["accepted", "superseded"] }).notNull(),
  supersedes: text("supersedes"),
  observedAt: text("observed_at"),
  receivedAt: text("received_at").notNull(),
  createdBy: text("created_by").notNull(),
});

export const relationships = sqliteTable("relationships", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  contextId: text("context_id").notNull(),
  sourceRecordId: text("source_record_id").notNull(),
  name: text("name").notNull(),
  targetRecordId: text("target_record_id").notNull(),
  targetModelId: text("target_model_id").notNull(),
  createdAt: text("created_at").notNull(),
});

export const relationshipRemovals = sqliteTable(
  "relationship_removals",
  {
    workspace: text("workspace").notNull(),
    contextId: text("context_id").notNull(),
    sourceRecordId: text("source_record_id").notNull(),
    name: text("name").notNull(),
    targetRecordId: text("target_record_id").notNull(),
    sourceIdentity: text("source_identity"),
    targetIdentity: text("target_identity"),
    removedAt: text("removed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceRecordId, t.name, t.targetRecordId] })],
);

export const rules = sqliteTable("rules", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  category: text("category").notNull(),
  severity: text("severity").notNull(),
  expression: text("expression").notNull(),
  contextTypes: text("context_types", { mode: "json" }).$type<string[]>().notNull(),
  status: text("status", { enum: ["active", "inactive"] }).notNull(),
  version: integer("version").notNull().default(1),
  ...audit,
});

export const evaluations = sqliteTable("evaluations", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  contextId: text("context_id").notNull(),
  ruleId: text("rule_id").notNull(),
  ruleVersion: integer("rule_version").notNull(),
  outcome: integer("outcome", { mode: "boolean" }).notNull(),
  trace: text("trace").notNull(),
  computedAt: text("computed_at").notNull(),
});

export const tokens = sqliteTable("tokens", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  name: text("name"),
  tokenHash: text("token_hash").notNull(),
  scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
  createdAt: text("created_at").notNull(),
  lastUsedAt: text("last_used_at"),
  revokedAt: text("revoked_at"),
});

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    workspace: text("workspace").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["running", "done"] }).notNull(),
    status: integer("status"),
    headers: text("headers"),
    body: text("body"),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    /** The process holding a `running` key (see owner-lock.ts); null once done. */
    owner: text("owner"),
  },
  (t) => [primaryKey({ columns: [t.workspace, t.key] })],
);

export const webhooks = sqliteTable("webhooks", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  url: text("url").notNull(),
  events: text("events", { mode: "json" }).$type<string[]>().notNull(),
  description: text("description").notNull().default(""),
  secret: text("secret").notNull(),
  createdAt: text("created_at").notNull(),
  deletedAt: text("deleted_at"),
  /** Epoch ms of the first failed attempt since the last success (automatic disabling). */
  failingSince: integer("failing_since"),
  disabledAt: text("disabled_at"),
  disabledReason: text("disabled_reason"),
});

export const webhookDeliveries = sqliteTable("webhook_deliveries", {
  id: text("id").primaryKey(),
  workspace: text("workspace").notNull(),
  webhookId: text("webhook_id").notNull(),
  messageId: text("message_id").notNull(),
  eventType: text("event_type").notNull(),
  payload: text("payload").notNull(),
  status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
  attempts: integer("attempts").notNull().default(0),
  lastStatusCode: integer("last_status_code"),
  lastError: text("last_error"),
  nextAttemptAt: integer("next_attempt_at"),
  createdAt: text("created_at").notNull(),
  deliveredAt: text("delivered_at"),
});

/** Values the store keeps for itself (the list-cursor signing key). */
export const settings = sqliteTable("settings", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
});
