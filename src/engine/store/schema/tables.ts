import { c, type Table } from "./columns.js";
import { idempotencyKeys, rateBudgets, settings, tokens, webhookDeliveries, webhooks } from "./service-tables.js";

/**
 * The schema, declared once for both engines: ddl.ts renders it as SQLite's and
 * PostgreSQL's DDL, the migrations build it, and a test compares both migrated databases
 * with it (docs/schema.md shows it whole, with the query behind every index).
 *
 * Inside the store every row is keyed by an integer (`id`) and refers to others by theirs;
 * the API's ids are the `uuid` columns (UUIDv7, stored in 16 bytes). Rows are never
 * removed where another row refers to them (deletes are soft), so the references the
 * engine writes itself carry no foreign key on the tables every import and pass writes
 * (see docs/schema.md, "Foreign keys").
 */

const times = {
  created_at: c.time({ notNull: true }),
  updated_at: c.time({ notNull: true }),
  deleted_at: c.time(),
};

const MODEL_STATUSES = ["draft", "active", "archived"] as const;
const CONTEXT_STATUSES = ["active", "completed", "archived"] as const;
const FRESHNESS = ["resolved", "stale", "computing"] as const;

export const workspaces: Table = {
  name: "workspaces",
  doc: "A tenant: every resource lives in exactly one.",
  columns: {
    id: c.key(),
    name: c.text({ notNull: true }),
    created_at: c.time({ notNull: true }),
    // The workspace's own rate limit (`50000/s`, `off`); NULL: the server's default.
    rate_limit: c.text(),
  },
  indexes: [{ name: "workspaces_name", columns: ["name"], unique: true, serves: "a workspace by name (every engine and token resolves its workspace once)" }],
};

export const models: Table = {
  name: "models",
  doc: "A model: its definition, and the compiled form the pipeline runs.",
  columns: {
    id: c.key(),
    uuid: c.uuid({ notNull: true }),
    workspace_id: c.ref("workspaces"),
    name: c.text({ notNull: true }),
    description: c.text({ notNull: true, default: "" }),
    status: c.text({ notNull: true, oneOf: MODEL_STATUSES }),
    version: c.int({ notNull: true, default: 1 }),
    identity: c.json({ notNull: true }),
    relationships: c.json({ notNull: true }),
    compiled: c.json(),
    ...times,
  },
  indexes: [
    { name: "models_uuid", columns: ["uuid"], unique: true, serves: "a model by id" },
    { name: "models_name_live", columns: ["workspace_id", "name"], unique: true, where: "deleted_at IS NULL", serves: "a model by name; names are unique among live models; the models of a workspace" },
  ],
};

export const fields: Table = {
  name: "fields",
  doc: "A field of a model. Contributions key their values by the field's integer id, so a rename changes nothing stored.",
  columns: {
    id: c.key(),
    uuid: c.uuid({ notNull: true }),
    model_id: c.ref("models"),
    name: c.text({ notNull: true }),
    type: c.text({ notNull: true }),
    description: c.text({ notNull: true, default: "" }),
    required: c.bool({ notNull: true, default: false }),
    validation: c.json(),
    resolution: c.json(),
    computed: c.json(),
    position: c.int({ notNull: true }),
    ...times,
  },
  indexes: [
    { name: "fields_uuid", columns: ["uuid"], unique: true, serves: "a field by id" },
    { name: "fields_of_model", columns: ["model_id"], serves: "the fields of a model, removed ones too (every model read; field names by id)" },
    { name: "fields_name_live", columns: ["model_id", "name"], unique: true, where: "deleted_at IS NULL", serves: "a field by name; names are unique among a model's live fields" },
  ],
};

export const contexts: Table = {
  name: "contexts",
  doc: "A decisioning context, with its pipeline state (freshness, evidence version, claim). `stale_since`: when it last turned stale, NULL while resolved (set to the upgrade's time for contexts stale when the column came).",
  columns: {
    id: c.key(),
    uuid: c.uuid({ notNull: true }),
    workspace_id: c.ref("workspaces"),
    name: c.text(),
    type: c.text(),
    metadata: c.json({ notNull: true }),
    status: c.text({ notNull: true, oneOf: CONTEXT_STATUSES }),
    freshness: c.text({ notNull: true, oneOf: FRESHNESS }),
    evidence_version: c.bigint({ notNull: true, default: 0 }),
    resolved_version: c.bigint({ notNull: true, default: 0 }),
    claimed_by: c.text(),
    lease_expires_at: c.time(),
    claim_token: c.bigint({ notNull: true, default: 0 }),
    // What the last committed pass covered: the evidence version it read, its own id (a
    // worker's copy of the state it wrote is good while the id is still this one), and the
    // stamp of the definitions it resolved with (another stamp: every record is resolved again).
    passed_version: c.bigint({ notNull: true, default: 0 }),
    pass_id: c.bigint(),
    pass_stamp: c.text(),
    created_at: c.time({ notNull: true }),
    updated_at: c.time({ notNull: true }),
    resolved_at: c.time(),
    // When it last turned stale (resolved → stale); NULL while resolved. How long the
    // oldest stale context has waited (a metric) is read from it.
    stale_since: c.time(),
    deleted_at: c.time(),
  },
  indexes: [
    { name: "contexts_uuid", columns: ["uuid"], unique: true, serves: "a context by id" },
    { name: "contexts_list", columns: ["workspace_id", "created_at", "uuid"], serves: "GET /contexts in its default order (createdAt, then id)" },
    { name: "contexts_by_name", columns: ["workspace_id", "name"], serves: "a context by name (the CLI's names, an import's contextRef)" },
    { name: "contexts_pending", columns: ["freshness", "status"], where: "deleted_at IS NULL", serves: "the pipeline's claim of a stale context" },
  ],
};

export const records: Table = {
  name: "records",
  doc: "A record of a context. `data`, `sha256`, `issues` and `lineage` are NULL until its first pass (the API shows {} and its hash). `changed_version` is its context's evidence version when its evidence last changed (a new record: the highest version there is, until its first pass; 0 for one written resolved by an import whose passes resolved its context): a pass resolves again only the records changed since the version it last covered.",
  columns: {
    id: c.key(),
    uuid: c.uuid({ notNull: true }),
    workspace_id: c.ref(undefined),
    context_id: c.ref(undefined),
    model_id: c.ref(undefined),
    identity_key: c.text(),
    changed_version: c.bigint({ notNull: true, default: 0 }),
    data: c.json(),
    sha256: c.digest(),
    issues: c.json(),
    lineage: c.json(),
    created_by: c.text({ notNull: true }),
    ...times,
  },
  indexes: [
    { name: "records_uuid", columns: ["uuid"], unique: true, serves: "a record by id" },
    {
      name: "records_identity_live",
      columns: ["context_id", "model_id", "identity_key"],
      unique: true,
      where: "deleted_at IS NULL",
      serves: "binding evidence to a record by identity; a context's live records (a pass's input, a context's summary, the contexts holding a model's records)",
    },
    { name: "records_deleted_by_context", columns: ["context_id"], where: "deleted_at IS NOT NULL", serves: "a context's soft-deleted records (listing a context's contributions)" },
    {
      name: "records_changed",
      columns: ["context_id", "changed_version"],
      where: "changed_version > 0",
      serves:
        "a pass's changed records: those of its context whose evidence changed after the version its last pass covered (new ones carry the highest version until resolved; those written resolved and clean, 0, are not in it)",
    },
    { name: "records_list", columns: ["workspace_id", "created_at", "uuid"], serves: "GET /records in its default order (createdAt, then id)" },
  ],
};

export const contributions: Table = {
  name: "contributions",
  doc: "A contribution: evidence bound to a record. Its context and model are its record's. `data` and `field_confidences` are keyed by the field's integer id; only confidences other than 1 are kept.",
  columns: {
    id: c.key(),
    uuid: c.uuid({ notNull: true }),
    workspace_id: c.ref(undefined),
    record_id: c.ref(undefined),
    source_id: c.text({ notNull: true }),
    source_type: c.text({ notNull: true }),
    data: c.json({ notNull: true }),
    field_confidences: c.json(),
    status: c.text({ notNull: true, oneOf: ["accepted", "superseded"] }),
    supersedes: c.ref(undefined, { notNull: false }),
    // The client's own time, echoed as it was written (the API never normalised it).
    observed_at: c.text(),
    received_at: c.time({ notNull: true }),
    created_by: c.text({ notNull: true }),
  },
  indexes: [
    { name: "contributions_uuid", columns: ["uuid"], unique: true, serves: "a contribution by id (also the lineage's winning contributions)" },
    {
      name: "contributions_by_record",
      columns: ["record_id", "source_id"],
      serves: "superseding (a source's last contribution to a record); a record's contributions (a pass's input, lineage, contributions of a context)",
    },
    {
      name: "contributions_accepted",
      columns: ["record_id", "source_id"],
      unique: true,
      where: "status = 'accepted'",
      engines: ["postgres"],
      serves: "binding on PostgreSQL: one probe per source for its accepted contribution, and never two accepted ones for a record and source across nodes (SQLite has one writer, and reads the last row of contributions_by_record)",
    },
    { name: "contributions_list", columns: ["workspace_id", "received_at", "uuid"], serves: "GET /contributions in its default order (receivedAt, then id)" },
  ],
};

export const relationships: Table = {
  name: "relationships",
  doc: "A link the pipeline made between two records of a context.",
  columns: {
    id: c.key(),
    context_id: c.ref(undefined),
    source_record_id: c.ref(undefined),
    name: c.text({ notNull: true }),
    target_record_id: c.ref(undefined),
    created_at: c.time({ notNull: true }),
  },
  indexes: [
    { name: "relationships_edge", columns: ["source_record_id", "name", "target_record_id"], unique: true, serves: "the links of a record (GET /records/{id}/relationships); one link per edge" },
    { name: "relationships_by_context", columns: ["context_id"], serves: "a context's links (a pass replaces them; the studio's graph)" },
  ],
};

export const relationshipRemovals: Table = {
  name: "relationship_removals",
  doc: "A link removed through the API, remembered so the pipeline does not make it again.",
  columns: {
    context_id: c.ref(undefined),
    source_record_id: c.ref(undefined),
    name: c.text({ notNull: true }),
    target_record_id: c.ref(undefined),
    source_identity: c.text(),
    target_identity: c.text(),
    removed_at: c.time({ notNull: true }),
  },
  primaryKey: ["source_record_id", "name", "target_record_id"],
  indexes: [{ name: "relationship_removals_by_context", columns: ["context_id"], serves: "a context's removed links (a pass's input)" }],
};

export const rules: Table = {
  name: "rules",
  doc: "A rule: its JSON Logic expression, where it applies, its version.",
  columns: {
    id: c.key(),
    uuid: c.uuid({ notNull: true }),
    workspace_id: c.ref("workspaces"),
    name: c.text({ notNull: true }),
    description: c.text({ notNull: true, default: "" }),
    category: c.text({ notNull: true }),
    severity: c.text({ notNull: true }),
    expression: c.json({ notNull: true }),
    context_types: c.json({ notNull: true }),
    status: c.text({ notNull: true, oneOf: ["active", "inactive"] }),
    version: c.int({ notNull: true, default: 1 }),
    ...times,
  },
  indexes: [
    { name: "rules_uuid", columns: ["uuid"], unique: true, serves: "a rule by id" },
    { name: "rules_name_live", columns: ["workspace_id", "name"], unique: true, where: "deleted_at IS NULL", serves: "a rule by name; names are unique among live rules; the rules of a workspace" },
  ],
};

export const evaluations: Table = {
  name: "evaluations",
  doc: "The current result of one rule in one context, with its trace.",
  columns: {
    id: c.key(),
    uuid: c.uuid({ notNull: true }),
    context_id: c.ref(undefined),
    rule_id: c.ref(undefined),
    rule_version: c.int({ notNull: true }),
    outcome: c.bool({ notNull: true }),
    trace: c.json({ notNull: true }),
    computed_at: c.time({ notNull: true }),
  },
  indexes: [
    { name: "evaluations_uuid", columns: ["uuid"], unique: true, serves: "an evaluation by id (webhook payloads name it)" },
    { name: "evaluations_pair", columns: ["context_id", "rule_id"], unique: true, serves: "a context's evaluations; one evaluation per rule per context" },
    { name: "evaluations_by_rule", columns: ["rule_id"], serves: "GET /rules/{id}/evaluations" },
  ],
};

/** Every table, in the order they are created (a table after those it refers to). */
export const TABLES: readonly Table[] = [
  workspaces,
  models,
  fields,
  contexts,
  records,
  contributions,
  relationships,
  relationshipRemovals,
  rules,
  evaluations,
  tokens,
  idempotencyKeys,
  webhooks,
  webhookDeliveries,
  settings,
  rateBudgets,
];
