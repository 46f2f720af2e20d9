/**
 * The first PostgreSQL schema: the same tables, columns and encodings as SQLite's (JSON as
 * TEXT, booleans as 0/1, ISO 8601 timestamps as TEXT, epoch milliseconds as BIGINT), so the
 * repositories read and write both stores alike. Text sorts byte-wise (COLLATE "C"), as in
 * SQLite, whatever the database's locale: lists page and order identically on both.
 * It matches SQLite's schema after its migration 0003 (the idempotency mark's `owner`,
 * unused here, and `settings` included), plus a unique index that keeps one accepted
 * contribution per record and source across nodes.
 */
export const sql = `
CREATE TABLE workspaces (
  name TEXT COLLATE "C" PRIMARY KEY,
  created_at TEXT COLLATE "C" NOT NULL
);

CREATE TABLE models (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  name TEXT COLLATE "C" NOT NULL,
  description TEXT COLLATE "C" NOT NULL DEFAULT '',
  status TEXT COLLATE "C" NOT NULL CHECK (status IN ('draft','active','archived')),
  version INTEGER NOT NULL DEFAULT 1,
  identity TEXT NOT NULL DEFAULT '[]',
  relationships TEXT NOT NULL DEFAULT '[]',
  compiled TEXT,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  deleted_at TEXT COLLATE "C"
);
CREATE UNIQUE INDEX models_name_live ON models(workspace, name) WHERE deleted_at IS NULL;
CREATE INDEX models_list ON models(workspace, created_at, id);

CREATE TABLE fields (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  model_id TEXT COLLATE "C" NOT NULL REFERENCES models(id),
  name TEXT COLLATE "C" NOT NULL,
  type TEXT COLLATE "C" NOT NULL,
  description TEXT COLLATE "C" NOT NULL DEFAULT '',
  required INTEGER NOT NULL DEFAULT 0,
  validation TEXT,
  resolution TEXT,
  computed TEXT,
  position INTEGER NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  deleted_at TEXT COLLATE "C"
);
CREATE UNIQUE INDEX fields_name_live ON fields(model_id, name) WHERE deleted_at IS NULL;
CREATE INDEX fields_list ON fields(workspace, created_at, id);

CREATE TABLE contexts (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  name TEXT COLLATE "C",
  type TEXT COLLATE "C",
  metadata TEXT NOT NULL DEFAULT '{}',
  status TEXT COLLATE "C" NOT NULL CHECK (status IN ('active','completed','archived')),
  freshness TEXT COLLATE "C" NOT NULL CHECK (freshness IN ('resolved','stale','computing')),
  evidence_version BIGINT NOT NULL DEFAULT 0,
  resolved_version BIGINT NOT NULL DEFAULT 0,
  claimed_by TEXT COLLATE "C",
  lease_expires_at BIGINT,
  claim_token BIGINT NOT NULL DEFAULT 0,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  resolved_at TEXT COLLATE "C",
  deleted_at TEXT COLLATE "C"
);
CREATE INDEX contexts_list ON contexts(workspace, created_at, id);
CREATE INDEX contexts_pending ON contexts(freshness, status) WHERE deleted_at IS NULL;

CREATE TABLE records (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  context_id TEXT COLLATE "C" NOT NULL REFERENCES contexts(id),
  model_id TEXT COLLATE "C" NOT NULL REFERENCES models(id),
  identity_key TEXT COLLATE "C",
  data TEXT NOT NULL DEFAULT '{}',
  sha256 TEXT COLLATE "C" NOT NULL,
  issues TEXT NOT NULL DEFAULT '[]',
  lineage TEXT NOT NULL DEFAULT '{}',
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  created_by TEXT COLLATE "C" NOT NULL,
  deleted_at TEXT COLLATE "C"
);
CREATE UNIQUE INDEX records_identity_live ON records(context_id, model_id, identity_key) WHERE deleted_at IS NULL;
CREATE INDEX records_by_context ON records(context_id, model_id);
CREATE INDEX records_by_model ON records(model_id) WHERE deleted_at IS NULL;
CREATE INDEX records_list ON records(workspace, created_at, id);

CREATE TABLE contributions (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  context_id TEXT COLLATE "C" NOT NULL REFERENCES contexts(id),
  model_id TEXT COLLATE "C" NOT NULL REFERENCES models(id),
  record_id TEXT COLLATE "C" NOT NULL REFERENCES records(id),
  source_id TEXT COLLATE "C" NOT NULL,
  source_type TEXT COLLATE "C" NOT NULL,
  data TEXT NOT NULL,
  field_confidences TEXT NOT NULL,
  status TEXT COLLATE "C" NOT NULL CHECK (status IN ('accepted','superseded')),
  supersedes TEXT COLLATE "C",
  observed_at TEXT COLLATE "C",
  received_at TEXT COLLATE "C" NOT NULL,
  created_by TEXT COLLATE "C" NOT NULL
);
CREATE INDEX contributions_by_record ON contributions(record_id, source_id);
CREATE UNIQUE INDEX contributions_accepted ON contributions(record_id, source_id) WHERE status = 'accepted';
CREATE INDEX contributions_by_context ON contributions(context_id);
CREATE INDEX contributions_list ON contributions(workspace, received_at, id);

CREATE TABLE relationships (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  context_id TEXT COLLATE "C" NOT NULL REFERENCES contexts(id),
  source_record_id TEXT COLLATE "C" NOT NULL REFERENCES records(id),
  name TEXT COLLATE "C" NOT NULL,
  target_record_id TEXT COLLATE "C" NOT NULL REFERENCES records(id),
  target_model_id TEXT COLLATE "C" NOT NULL REFERENCES models(id),
  created_at TEXT COLLATE "C" NOT NULL
);
CREATE UNIQUE INDEX relationships_edge ON relationships(source_record_id, name, target_record_id);
CREATE INDEX relationships_by_context ON relationships(context_id);

CREATE TABLE relationship_removals (
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  context_id TEXT COLLATE "C" NOT NULL REFERENCES contexts(id),
  source_record_id TEXT COLLATE "C" NOT NULL,
  name TEXT COLLATE "C" NOT NULL,
  target_record_id TEXT COLLATE "C" NOT NULL,
  source_identity TEXT COLLATE "C",
  target_identity TEXT COLLATE "C",
  removed_at TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (source_record_id, name, target_record_id)
);
CREATE INDEX relationship_removals_by_context ON relationship_removals(context_id);

CREATE TABLE rules (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  name TEXT COLLATE "C" NOT NULL,
  description TEXT COLLATE "C" NOT NULL DEFAULT '',
  category TEXT COLLATE "C" NOT NULL,
  severity TEXT COLLATE "C" NOT NULL,
  expression TEXT NOT NULL,
  context_types TEXT NOT NULL DEFAULT '[]',
  status TEXT COLLATE "C" NOT NULL CHECK (status IN ('active','inactive')),
  version INTEGER NOT NULL DEFAULT 1,
  created_at TEXT COLLATE "C" NOT NULL,
  updated_at TEXT COLLATE "C" NOT NULL,
  deleted_at TEXT COLLATE "C"
);
CREATE UNIQUE INDEX rules_name_live ON rules(workspace, name) WHERE deleted_at IS NULL;
CREATE INDEX rules_list ON rules(workspace, created_at, id);

CREATE TABLE evaluations (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  context_id TEXT COLLATE "C" NOT NULL REFERENCES contexts(id),
  rule_id TEXT COLLATE "C" NOT NULL REFERENCES rules(id),
  rule_version INTEGER NOT NULL,
  outcome INTEGER NOT NULL,
  trace TEXT NOT NULL,
  computed_at TEXT COLLATE "C" NOT NULL
);
CREATE UNIQUE INDEX evaluations_pair ON evaluations(context_id, rule_id);
CREATE INDEX evaluations_by_rule ON evaluations(rule_id);

CREATE TABLE tokens (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  name TEXT COLLATE "C",
  token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
  scopes TEXT NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  last_used_at TEXT COLLATE "C",
  revoked_at TEXT COLLATE "C"
);

CREATE TABLE idempotency_keys (
  workspace TEXT COLLATE "C" NOT NULL,
  key TEXT COLLATE "C" NOT NULL,
  request_hash TEXT COLLATE "C" NOT NULL,
  state TEXT COLLATE "C" NOT NULL CHECK (state IN ('running','done')),
  owner TEXT COLLATE "C",
  status INTEGER,
  headers TEXT,
  body TEXT,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (workspace, key)
);
CREATE INDEX idempotency_expiry ON idempotency_keys(expires_at);

CREATE TABLE webhooks (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL REFERENCES workspaces(name),
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  description TEXT COLLATE "C" NOT NULL DEFAULT '',
  secret TEXT NOT NULL,
  created_at TEXT COLLATE "C" NOT NULL,
  deleted_at TEXT COLLATE "C"
);

CREATE TABLE webhook_deliveries (
  id TEXT COLLATE "C" PRIMARY KEY,
  workspace TEXT COLLATE "C" NOT NULL,
  webhook_id TEXT COLLATE "C" NOT NULL REFERENCES webhooks(id),
  message_id TEXT COLLATE "C" NOT NULL,
  event_type TEXT COLLATE "C" NOT NULL,
  payload TEXT NOT NULL,
  status TEXT COLLATE "C" NOT NULL CHECK (status IN ('pending','delivered','failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  last_error TEXT,
  next_attempt_at BIGINT,
  created_at TEXT COLLATE "C" NOT NULL,
  delivered_at TEXT COLLATE "C"
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_hook ON webhook_deliveries(webhook_id, created_at, id);

-- Values the store keeps for itself: the key that signs list cursors (random per
-- database, from PostgreSQL's strong random source, so every node signs alike).
CREATE TABLE settings (
  name TEXT COLLATE "C" PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO settings (name, value) VALUES ('cursor_key', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
`;
