import type Database from "better-sqlite3";
import type { OnMigrationProgress } from "../../migration-progress.js";
import { createIndexSql, createTableSql, indexesOn } from "../../schema/ddl.js";
import { TABLES } from "../../schema/tables.js";
import { epochMs, uuidBytes, uuidString } from "../../values.js";

/**
 * Schema 5: the one declared schema (schema/tables.ts), compact. Every table is rebuilt
 * with integer keys inside, UUIDs in 16 bytes, times as epoch milliseconds, digests in 32
 * bytes, and contributions' values keyed by field key. Rows are copied in their original
 * order, every id kept; it runs in the caller's transaction, so a killed upgrade leaves
 * the database as it was.
 */

/** How many rows one copying statement takes (progress is reported between them). */
const SLICE = 20_000;

interface Copy {
  /** The table written. */
  table: string;
  /** The INSERT's column list and SELECT, reading `o` (the legacy table) by rowid slice. */
  insert: string;
  select: string;
}

// The legacy tables are renamed `legacy_<name>`; their rows are read in rowid order, so
// keys are given in the order the rows were written.
const COPIES: Copy[] = [
  { table: "workspaces", insert: "name, created_at", select: "SELECT o.name, dds_ms(o.created_at) FROM legacy_workspaces o" },
  {
    table: "models",
    insert: "uuid, workspace_id, name, description, status, version, identity, relationships, compiled, created_at, updated_at, deleted_at",
    select: `SELECT dds_uuid(o.id), w.id, o.name, o.description, o.status, o.version, o.identity, o.relationships, o.compiled,
      dds_ms(o.created_at), dds_ms(o.updated_at), dds_ms(o.deleted_at) FROM legacy_models o JOIN workspaces w ON w.name = o.workspace`,
  },
  {
    table: "fields",
    insert: "uuid, model_id, name, type, description, required, validation, resolution, computed, position, created_at, updated_at, deleted_at",
    select: `SELECT dds_uuid(o.id), m.id, o.name, o.type, o.description, o.required, o.validation, o.resolution, o.computed, o.position,
      dds_ms(o.created_at), dds_ms(o.updated_at), dds_ms(o.deleted_at) FROM legacy_fields o JOIN models m ON m.uuid = dds_uuid(o.model_id)`,
  },
  {
    table: "contexts",
    insert: `uuid, workspace_id, name, type, metadata, status, freshness, evidence_version, resolved_version, claimed_by, lease_expires_at,
      claim_token, created_at, updated_at, resolved_at, deleted_at`,
    select: `SELECT dds_uuid(o.id), w.id, o.name, o.type, o.metadata, o.status, o.freshness, o.evidence_version, o.resolved_version, o.claimed_by,
      o.lease_expires_at, o.claim_token, dds_ms(o.created_at), dds_ms(o.updated_at), dds_ms(o.resolved_at), dds_ms(o.deleted_at)
      FROM legacy_contexts o JOIN workspaces w ON w.name = o.workspace`,
  },
  {
    table: "records",
    insert: "uuid, workspace_id, context_id, model_id, identity_key, data, sha256, issues, lineage, created_by, created_at, updated_at, deleted_at",
    select: `SELECT dds_uuid(o.id), w.id, c.id, m.id, o.identity_key, o.data, unhex(o.sha256), o.issues, o.lineage, o.created_by,
      dds_ms(o.created_at), dds_ms(o.updated_at), dds_ms(o.deleted_at)
      FROM legacy_records o JOIN workspaces w ON w.name = o.workspace JOIN contexts c ON c.uuid = dds_uuid(o.context_id) JOIN models m ON m.uuid = dds_uuid(o.model_id)`,
  },
  {
    table: "contributions",
    insert: "uuid, workspace_id, record_id, source_id, source_type, data, field_confidences, status, observed_at, received_at, created_by",
    select: `SELECT dds_uuid(o.id), w.id, r.id, o.source_id, o.source_type, dds_values(o.data), dds_confidences(o.field_confidences), o.status,
      o.observed_at, dds_ms(o.received_at), o.created_by
      FROM legacy_contributions o JOIN workspaces w ON w.name = o.workspace JOIN records r ON r.uuid = dds_uuid(o.record_id)`,
  },
  {
    table: "relationships",
    insert: "context_id, source_record_id, name, target_record_id, created_at",
    select: `SELECT c.id, s.id, o.name, t.id, dds_ms(o.created_at) FROM legacy_relationships o JOIN contexts c ON c.uuid = dds_uuid(o.context_id)
      JOIN records s ON s.uuid = dds_uuid(o.source_record_id) JOIN records t ON t.uuid = dds_uuid(o.target_record_id)`,
  },
  {
    table: "relationship_removals",
    insert: "context_id, source_record_id, name, target_record_id, source_identity, target_identity, removed_at",
    select: `SELECT c.id, s.id, o.name, t.id, o.source_identity, o.target_identity, dds_ms(o.removed_at) FROM legacy_relationship_removals o
      JOIN contexts c ON c.uuid = dds_uuid(o.context_id) JOIN records s ON s.uuid = dds_uuid(o.source_record_id) JOIN records t ON t.uuid = dds_uuid(o.target_record_id)`,
  },
  {
    table: "rules",
    insert: "uuid, workspace_id, name, description, category, severity, expression, context_types, status, version, created_at, updated_at, deleted_at",
    select: `SELECT dds_uuid(o.id), w.id, o.name, o.description, o.category, o.severity, o.expression, o.context_types, o.status, o.version,
      dds_ms(o.created_at), dds_ms(o.updated_at), dds_ms(o.deleted_at) FROM legacy_rules o JOIN workspaces w ON w.name = o.workspace`,
  },
  {
    table: "evaluations",
    insert: "uuid, context_id, rule_id, rule_version, outcome, trace, computed_at",
    select: `SELECT dds_uuid(o.id), c.id, r.id, o.rule_version, o.outcome, o.trace, dds_ms(o.computed_at) FROM legacy_evaluations o
      JOIN contexts c ON c.uuid = dds_uuid(o.context_id) JOIN rules r ON r.uuid = dds_uuid(o.rule_id)`,
  },
  {
    table: "tokens",
    insert: "uuid, workspace_id, name, token_hash, scopes, created_at, last_used_at, revoked_at",
    select: `SELECT dds_uuid(o.id), w.id, o.name, unhex(o.token_hash), o.scopes, dds_ms(o.created_at), dds_ms(o.last_used_at), dds_ms(o.revoked_at)
      FROM legacy_tokens o JOIN workspaces w ON w.name = o.workspace`,
  },
  {
    table: "idempotency_keys",
    // request_hash held either the API's fingerprint of a request (never compared) or, on a
    // row the engine stored, the SHA-256 of its call's name; only the one call with a compact
    // answer (a keyed contribution bulk) is named in answer_form, everything else is NULL.
    insert: "workspace_id, key, answer_form, state, status, headers, body, owner, created_at, expires_at",
    select: `SELECT w.id, o.key, CASE o.request_hash WHEN '808ff7c2108644ab04bf8bca69f7da3a78e0e174458ccc53d15a9c8a27aa3dac' THEN 'POST /contributions/bulk' END,
        o.state, o.status, o.headers, o.body, o.owner, o.created_at, o.expires_at
      FROM legacy_idempotency_keys o JOIN workspaces w ON w.name = o.workspace`,
  },
  {
    table: "webhooks",
    insert: "uuid, workspace_id, url, events, description, secret, created_at, deleted_at",
    select: `SELECT dds_uuid(o.id), w.id, o.url, o.events, o.description, o.secret, dds_ms(o.created_at), dds_ms(o.deleted_at)
      FROM legacy_webhooks o JOIN workspaces w ON w.name = o.workspace`,
  },
  {
    table: "webhook_deliveries",
    insert: "uuid, webhook_id, message_id, event_type, payload, status, attempts, last_status_code, last_error, next_attempt_at, created_at, delivered_at",
    select: `SELECT dds_uuid(o.id), h.id, dds_uuid(substr(o.message_id, 5)), o.event_type, o.payload, o.status, o.attempts, o.last_status_code, o.last_error,
      o.next_attempt_at, dds_ms(o.created_at), dds_ms(o.delivered_at) FROM legacy_webhook_deliveries o JOIN webhooks h ON h.uuid = dds_uuid(o.webhook_id)`,
  },
  { table: "settings", insert: "name, value", select: "SELECT o.name, o.value FROM legacy_settings o" },
];

/** Re-keys a stored object from field ids to field keys (`f12`), keeping its order. */
function rekey(text: string | null, keys: Map<string, number>, dropOnes: boolean): string | null {
  if (text === null) return null;
  const out: Record<string, unknown> = {};
  let any = false;
  for (const [id, v] of Object.entries(JSON.parse(text) as Record<string, unknown>)) {
    if (dropOnes && v === 1) continue;
    const key = keys.get(id.toLowerCase());
    out[key === undefined ? id : `f${key}`] = v;
    any = true;
  }
  return dropOnes && !any ? null : JSON.stringify(out);
}

/** Applies schema 5 to a database at schema 4, inside the caller's transaction. */
export function compactKeys(raw: Database.Database, progress?: OnMigrationProgress): void {
  const fieldKeys = new Map<string, number>();
  raw.function("dds_uuid", { deterministic: true }, (id: unknown) => (typeof id === "string" ? (uuidBytes(id) ?? null) : null));
  raw.function("dds_uuid_text", { deterministic: true }, (b: unknown) => (b instanceof Uint8Array ? uuidString(b) : null));
  raw.function("dds_ms", { deterministic: true }, (t: unknown) => (typeof t === "string" ? epochMs(t) : typeof t === "number" ? t : null));
  raw.function("dds_values", { deterministic: true }, (text: unknown) => rekey(text as string | null, fieldKeys, false));
  raw.function("dds_confidences", { deterministic: true }, (text: unknown) => rekey(text as string | null, fieldKeys, true));
  const old = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
  for (const index of raw.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").pluck().all() as string[]) raw.exec(`DROP INDEX ${index}`);
  for (const table of old) raw.exec(`ALTER TABLE ${table} RENAME TO legacy_${table}`);
  // Indexes first: the copies join on them (every reference found by its UUID).
  for (const table of TABLES) raw.exec(createTableSql("sqlite", table));
  for (const table of TABLES) for (const index of indexesOn("sqlite", table)) raw.exec(createIndexSql(table, index));
  const counts = COPIES.map((c) => Number(raw.prepare(`SELECT COUNT(*) FROM legacy_${c.table}`).pluck().get()));
  const total = counts.reduce((a, b) => a + b, 0);
  let done = 0;
  COPIES.forEach((copy, i) => {
    if (copy.table === "contributions") {
      for (const f of raw.prepare("SELECT id, uuid FROM fields").all() as { id: number; uuid: Buffer }[]) fieldKeys.set(uuidString(f.uuid), f.id);
    }
    const statement = raw.prepare(`INSERT INTO ${copy.table} (${copy.insert}) ${copy.select} WHERE o.rowid > ? AND o.rowid <= ? ORDER BY o.rowid`);
    const maxRowid = Number(raw.prepare(`SELECT COALESCE(MAX(rowid), 0) FROM legacy_${copy.table}`).pluck().get());
    for (let from = 0; from < maxRowid; from += SLICE) {
      done += statement.run(from, from + SLICE).changes;
      progress?.({ migration: "0005-compact-keys", step: copy.table, done, total });
    }
    // Rows the copy could not place (a reference to nothing) would be lost: refuse instead.
    const copied = Number(raw.prepare(`SELECT COUNT(*) FROM ${copy.table}`).pluck().get());
    if (copied !== counts[i]) throw new Error(`upgrading ${copy.table}: ${counts[i]} rows, ${copied} copied; the database is left as it was`);
  });
  // A contribution's predecessor, by key: both rows exist now.
  raw.exec(`UPDATE contributions SET supersedes = (
      SELECT p.id FROM legacy_contributions o JOIN contributions p ON p.uuid = dds_uuid(o.supersedes) WHERE o.id = dds_uuid_text(contributions.uuid))
    WHERE uuid IN (SELECT dds_uuid(id) FROM legacy_contributions WHERE supersedes IS NOT NULL)`);
  // Children before the tables they refer to (foreign keys are on).
  for (const table of [...old].reverse()) raw.exec(`DROP TABLE legacy_${table}`);
}
