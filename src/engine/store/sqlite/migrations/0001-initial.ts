/**
 * The first schema. Every table carries `workspace` so nothing crosses workspaces; soft
 * deletes keep rows (`deleted_at`) for audit. Timestamps are ISO 8601 text, which sorts
 * correctly as text.
 */
export const sql = `
CREATE TABLE workspaces (
  name TEXT PRIMARY KEY,
  created_at TEXT NOT NULL
);

CREATE TABLE models (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('draft','active','archived')),
  version INTEGER NOT NULL DEFAULT 1,
  identity TEXT NOT NULL DEFAULT '[]',
  relationships TEXT NOT NULL DEFAULT '[]',
  compiled TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE UNIQUE INDEX models_name_live ON models(workspace, name) WHERE deleted_at IS NULL;
CREATE INDEX models_list ON models(workspace, created_at, id);

CREATE TABLE fields (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  model_id TEXT NOT NULL REFERENCES models(id),
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  required INTEGER NOT NULL DEFAULT 0,
  validation TEXT,
  resolution TEXT,
  computed TEXT,
  position INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE UNIQUE INDEX fields_name_live ON fields(model_id, name) WHERE deleted_at IS NULL;
CREATE INDEX fields_list ON fields(workspace, created_at, id);

CREATE TABLE contexts (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  name TEXT,
  type TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL CHECK (status IN ('active','completed','archived')),
  freshness TEXT NOT NULL CHECK (freshness IN ('resolved','stale','computing')),
  evidence_version INTEGER NOT NULL DEFAULT 0,
  resolved_version INTEGER NOT NULL DEFAULT 0,
  claimed_by TEXT,
  lease_expires_at INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  resolved_at TEXT,
  deleted_at TEXT
);
CREATE INDEX contexts_list ON contexts(workspace, created_at, id);
CREATE INDEX contexts_pending ON contexts(freshness, status) WHERE deleted_at IS NULL;

CREATE TABLE records (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  context_id TEXT NOT NULL REFERENCES contexts(id),
  model_id TEXT NOT NULL REFERENCES models(id),
  identity_key TEXT,
  data TEXT NOT NULL DEFAULT '{}',
  sha256 TEXT NOT NULL,
  issues TEXT NOT NULL DEFAULT '[]',
  lineage TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  created_by TEXT NOT NULL,
  deleted_at TEXT
);
CREATE UNIQUE INDEX records_identity_live ON records(context_id, model_id, identity_key) WHERE deleted_at IS NULL;
CREATE INDEX records_by_context ON records(context_id, model_id);
CREATE INDEX records_by_model ON records(model_id) WHERE deleted_at IS NULL;
CREATE INDEX records_list ON records(workspace, created_at, id);

CREATE TABLE contributions (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  context_id TEXT NOT NULL REFERENCES contexts(id),
  model_id TEXT NOT NULL REFERENCES models(id),
  record_id TEXT NOT NULL REFERENCES records(id),
  source_id TEXT NOT NULL,
  source_type TEXT NOT NULL,
  data TEXT NOT NULL,
  field_confidences TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('accepted','superseded')),
  supersedes TEXT,
  observed_at TEXT,
  received_at TEXT NOT NULL,
  created_by TEXT NOT NULL
);
-- status is deliberately not indexed: superseding flips it on every re-contribution, and
-- an indexed status would rewrite two index entries per ingest.
CREATE INDEX contributions_by_record ON contributions(record_id, source_id);
CREATE INDEX contributions_by_context ON contributions(context_id);
CREATE INDEX contributions_list ON contributions(workspace, received_at, id);

CREATE TABLE relationships (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  context_id TEXT NOT NULL REFERENCES contexts(id),
  source_record_id TEXT NOT NULL REFERENCES records(id),
  name TEXT NOT NULL,
  target_record_id TEXT NOT NULL REFERENCES records(id),
  target_model_id TEXT NOT NULL REFERENCES models(id),
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX relationships_edge ON relationships(source_record_id, name, target_record_id);
CREATE INDEX relationships_by_context ON relationships(context_id);

CREATE TABLE relationship_removals (
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  context_id TEXT NOT NULL REFERENCES contexts(id),
  source_record_id TEXT NOT NULL,
  name TEXT NOT NULL,
  target_record_id TEXT NOT NULL,
  source_identity TEXT,
  target_identity TEXT,
  removed_at TEXT NOT NULL,
  PRIMARY KEY (source_record_id, name, target_record_id)
);
CREATE INDEX relationship_removals_by_context ON relationship_removals(context_id);

CREATE TABLE rules (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  category TEXT NOT NULL,
  severity TEXT NOT NULL,
  expression TEXT NOT NULL,
  context_types TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL CHECK (status IN ('active','inactive')),
  version INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE UNIQUE INDEX rules_name_live ON rules(workspace, name) WHERE deleted_at IS NULL;
CREATE INDEX rules_list ON rules(workspace, created_at, id);

CREATE TABLE evaluations (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  context_id TEXT NOT NULL REFERENCES contexts(id),
  rule_id TEXT NOT NULL REFERENCES rules(id),
  rule_version INTEGER NOT NULL,
  outcome INTEGER NOT NULL,
  trace TEXT NOT NULL,
  computed_at TEXT NOT NULL
);
CREATE UNIQUE INDEX evaluations_pair ON evaluations(context_id, rule_id);
CREATE INDEX evaluations_by_rule ON evaluations(rule_id);

CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  name TEXT,
  token_hash TEXT NOT NULL UNIQUE,
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);

CREATE TABLE idempotency_keys (
  workspace TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running','done')),
  status INTEGER,
  headers TEXT,
  body TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (workspace, key)
);
CREATE INDEX idempotency_expiry ON idempotency_keys(expires_at);

CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(name),
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  secret TEXT NOT NULL,
  created_at TEXT NOT NULL,
  deleted_at TEXT
);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id),
  message_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending','delivered','failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  last_error TEXT,
  next_attempt_at INTEGER,
  created_at TEXT NOT NULL,
  delivered_at TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_hook ON webhook_deliveries(webhook_id, created_at, id);
`;
