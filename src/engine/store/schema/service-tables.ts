import { c, type Table } from "./columns.js";

// The service's own tables, part of the one schema declared in tables.ts (whose TABLES
// lists every table in order): tokens, idempotency keys, webhooks and their deliveries,
// settings and rate budgets. They hold no evidence.

export const tokens: Table = {
  name: "tokens",
  doc: "An API token: only its SHA-256 is stored. `expires_at` NULL: it never expires (every token made before expiry existed).",
  columns: {
    id: c.key(),
    uuid: c.uuid({ notNull: true }),
    workspace_id: c.ref("workspaces"),
    name: c.text(),
    token_hash: c.digest({ notNull: true }),
    scopes: c.json({ notNull: true }),
    created_at: c.time({ notNull: true }),
    last_used_at: c.time(),
    revoked_at: c.time(),
    // The token's own rate limit (`1000/min`, `off`); NULL: the server's default.
    rate_limit: c.text(),
    expires_at: c.time(),
  },
  indexes: [
    { name: "tokens_uuid", columns: ["uuid"], unique: true, serves: "a token by id (revoke)" },
    { name: "tokens_hash", columns: ["token_hash"], unique: true, serves: "authenticating a request by its token" },
  ],
};

export const idempotencyKeys: Table = {
  name: "idempotency_keys",
  doc: "An Idempotency-Key of a workspace: its run's mark while it runs, then its answer for 24 hours. `answer_form` names the engine call whose compact form `body` holds (a keyed contribution bulk keeps contribution keys, rebuilt on replay); NULL: `body` is the answer as sent.",
  columns: {
    workspace_id: c.ref(undefined),
    key: c.text({ notNull: true }),
    answer_form: c.text(),
    state: c.text({ notNull: true, oneOf: ["running", "done"] }),
    status: c.int(),
    headers: c.json(),
    body: c.text(),
    owner: c.text(),
    created_at: c.time({ notNull: true }),
    expires_at: c.time({ notNull: true }),
  },
  primaryKey: ["workspace_id", "key"],
  indexes: [{ name: "idempotency_expiry", columns: ["expires_at"], serves: "the purge of expired keys" }],
};

export const webhooks: Table = {
  name: "webhooks",
  doc: "A webhook subscription; its signing secret sealed.",
  columns: {
    id: c.key(),
    uuid: c.uuid({ notNull: true }),
    workspace_id: c.ref("workspaces"),
    url: c.text({ notNull: true }),
    events: c.jsonb({ notNull: true }),
    description: c.text({ notNull: true, default: "" }),
    secret: c.text({ notNull: true }),
    created_at: c.time({ notNull: true }),
    deleted_at: c.time(),
    // The first failed attempt since the last success: the clock of automatic disabling.
    failing_since: c.time(),
    disabled_at: c.time(),
    disabled_reason: c.text(),
  },
  indexes: [
    { name: "webhooks_uuid", columns: ["uuid"], unique: true, serves: "a webhook by id" },
    { name: "webhooks_of_workspace", columns: ["workspace_id"], where: "deleted_at IS NULL", serves: "the subscribers of an event (every pass that emits one)" },
  ],
};

export const webhookDeliveries: Table = {
  name: "webhook_deliveries",
  doc: "The outbox: one event owed to one webhook, with its attempts.",
  columns: {
    id: c.key(),
    uuid: c.uuid({ notNull: true }),
    webhook_id: c.ref("webhooks"),
    message_id: c.uuid({ notNull: true }),
    event_type: c.text({ notNull: true }),
    payload: c.json({ notNull: true }),
    status: c.text({ notNull: true, oneOf: ["pending", "delivered", "failed"] }),
    attempts: c.int({ notNull: true, default: 0 }),
    last_status_code: c.int(),
    last_error: c.text(),
    next_attempt_at: c.time(),
    created_at: c.time({ notNull: true }),
    delivered_at: c.time(),
  },
  indexes: [
    { name: "webhook_deliveries_uuid", columns: ["uuid"], unique: true, serves: "a delivery by id" },
    { name: "webhook_deliveries_due", columns: ["next_attempt_at"], where: "status = 'pending'", serves: "the dispatcher's claim of due deliveries" },
    { name: "webhook_deliveries_by_hook", columns: ["webhook_id", "created_at", "uuid"], serves: "GET /webhooks/{id}/deliveries in its default order" },
    {
      name: "webhook_deliveries_by_hook_status",
      columns: ["webhook_id", "status", "created_at"],
      serves: "a webhook's deliveries by status (the deliveries list filtered, recover, failing the pending ones when a webhook is disabled)",
    },
  ],
};

export const settings: Table = {
  name: "settings",
  doc: "Values the store keeps for itself (the key that signs list cursors).",
  columns: {
    name: c.text({ notNull: true }),
    value: c.text({ notNull: true }),
  },
  primaryKey: ["name"],
  indexes: [],
};

export const rateBudgets: Table = {
  name: "rate_budgets",
  doc: "A rate limit's budget shared by the nodes on PostgreSQL, one per workspace (`w:<name>`) and token (`t:<tokenId>`) that made a request: the units it owes (in millionths) as of a time of the database's clock (microseconds since the epoch), paid back continuously at its limit's rate, and the units its last statement granted. Bookkeeping only, never announced as a change; SQLite's single node keeps budgets in memory and leaves it empty.",
  columns: {
    key: c.text({ notNull: true }),
    debt_mu: c.bigint({ notNull: true }),
    at_us: c.bigint({ notNull: true }),
    granted: c.bigint({ notNull: true, default: 0 }),
  },
  primaryKey: ["key"],
  indexes: [],
};
