import type postgres from "postgres";
import type { OnMigrationProgress } from "../../migration-progress.js";
import { createIndexSql, createTableSql, indexesOn } from "../../schema/ddl.js";
import { TABLES } from "../../schema/tables.js";

/**
 * Schema 2: the one declared schema (schema/tables.ts) in PostgreSQL's own types: integer
 * keys inside, `uuid`, `timestamptz`, `boolean`, `bytea`, `json`; contributions' values
 * keyed by field key. The tables of schema 1 are renamed `legacy_*` (their indexes too),
 * the new ones created and filled, every id kept, and the old ones dropped: all in the
 * caller's transaction, so a killed upgrade rolls back.
 */

const ms = (column: string) => `to_timestamp(${column} / 1000.0)`;

/** Stored values re-keyed by field key, in their order; confidences of 1 left out when `dropOnes`. */
const rekey = (column: string, dropOnes: boolean) => `(SELECT json_object_agg(COALESCE('f' || k.key, e.key), e.value ORDER BY e.ord)
  FROM json_each(${column}::json) WITH ORDINALITY AS e(key, value, ord) LEFT JOIN legacy_field_keys k ON k.id = lower(e.key)
  ${dropOnes ? "WHERE json_typeof(e.value) <> 'number' OR (e.value::text)::numeric <> 1" : ""})`;

const COPIES: [table: string, sql: string][] = [
  ["workspaces", "INSERT INTO workspaces (name, created_at) SELECT name, created_at::timestamptz FROM legacy_workspaces ORDER BY created_at, name"],
  [
    "models",
    `INSERT INTO models (uuid, workspace_id, name, description, status, version, identity, relationships, compiled, created_at, updated_at, deleted_at)
     SELECT o.id::uuid, w.id, o.name, o.description, o.status, o.version, o.identity::json, o.relationships::json, o.compiled::json,
       o.created_at::timestamptz, o.updated_at::timestamptz, o.deleted_at::timestamptz
     FROM legacy_models o JOIN workspaces w ON w.name = o.workspace ORDER BY o.created_at, o.id`,
  ],
  [
    "fields",
    `INSERT INTO fields (uuid, model_id, name, type, description, required, validation, resolution, computed, position, created_at, updated_at, deleted_at)
     SELECT o.id::uuid, m.id, o.name, o.type, o.description, o.required <> 0, o.validation::json, o.resolution::json, o.computed::json, o.position,
       o.created_at::timestamptz, o.updated_at::timestamptz, o.deleted_at::timestamptz
     FROM legacy_fields o JOIN models m ON m.uuid = o.model_id::uuid ORDER BY o.created_at, o.id`,
  ],
  [
    "contexts",
    `INSERT INTO contexts (uuid, workspace_id, name, type, metadata, status, freshness, evidence_version, resolved_version, claimed_by, lease_expires_at,
       claim_token, created_at, updated_at, resolved_at, deleted_at)
     SELECT o.id::uuid, w.id, o.name, o.type, o.metadata::json, o.status, o.freshness, o.evidence_version, o.resolved_version, o.claimed_by,
       ${ms("o.lease_expires_at")}, o.claim_token, o.created_at::timestamptz, o.updated_at::timestamptz, o.resolved_at::timestamptz, o.deleted_at::timestamptz
     FROM legacy_contexts o JOIN workspaces w ON w.name = o.workspace ORDER BY o.created_at, o.id`,
  ],
  [
    "records",
    `INSERT INTO records (uuid, workspace_id, context_id, model_id, identity_key, data, sha256, issues, lineage, created_by, created_at, updated_at, deleted_at)
     SELECT o.id::uuid, w.id, c.id, m.id, o.identity_key, o.data::json, decode(o.sha256, 'hex'), o.issues::json, o.lineage::json, o.created_by,
       o.created_at::timestamptz, o.updated_at::timestamptz, o.deleted_at::timestamptz
     FROM legacy_records o JOIN workspaces w ON w.name = o.workspace JOIN contexts c ON c.uuid = o.context_id::uuid JOIN models m ON m.uuid = o.model_id::uuid
     ORDER BY o.created_at, o.id`,
  ],
  [
    "contributions",
    `INSERT INTO contributions (uuid, workspace_id, record_id, source_id, source_type, data, field_confidences, status, observed_at, received_at, created_by)
     SELECT o.id::uuid, w.id, r.id, o.source_id, o.source_type, COALESCE(${rekey("o.data", false)}, '{}'::json), ${rekey("o.field_confidences", true)},
       o.status, o.observed_at, o.received_at::timestamptz, o.created_by
     FROM legacy_contributions o JOIN workspaces w ON w.name = o.workspace JOIN records r ON r.uuid = o.record_id::uuid
     ORDER BY o.received_at, o.id`,
  ],
  [
    "relationships",
    `INSERT INTO relationships (context_id, source_record_id, name, target_record_id, created_at)
     SELECT c.id, s.id, o.name, t.id, o.created_at::timestamptz FROM legacy_relationships o JOIN contexts c ON c.uuid = o.context_id::uuid
       JOIN records s ON s.uuid = o.source_record_id::uuid JOIN records t ON t.uuid = o.target_record_id::uuid ORDER BY o.created_at, o.id`,
  ],
  [
    "relationship_removals",
    `INSERT INTO relationship_removals (context_id, source_record_id, name, target_record_id, source_identity, target_identity, removed_at)
     SELECT c.id, s.id, o.name, t.id, o.source_identity, o.target_identity, o.removed_at::timestamptz FROM legacy_relationship_removals o
       JOIN contexts c ON c.uuid = o.context_id::uuid JOIN records s ON s.uuid = o.source_record_id::uuid JOIN records t ON t.uuid = o.target_record_id::uuid`,
  ],
  [
    "rules",
    `INSERT INTO rules (uuid, workspace_id, name, description, category, severity, expression, context_types, status, version, created_at, updated_at, deleted_at)
     SELECT o.id::uuid, w.id, o.name, o.description, o.category, o.severity, o.expression::json, o.context_types::json, o.status, o.version,
       o.created_at::timestamptz, o.updated_at::timestamptz, o.deleted_at::timestamptz
     FROM legacy_rules o JOIN workspaces w ON w.name = o.workspace ORDER BY o.created_at, o.id`,
  ],
  [
    "evaluations",
    `INSERT INTO evaluations (uuid, context_id, rule_id, rule_version, outcome, trace, computed_at)
     SELECT o.id::uuid, c.id, r.id, o.rule_version, o.outcome <> 0, o.trace::json, o.computed_at::timestamptz
     FROM legacy_evaluations o JOIN contexts c ON c.uuid = o.context_id::uuid JOIN rules r ON r.uuid = o.rule_id::uuid ORDER BY o.computed_at, o.id`,
  ],
  [
    "tokens",
    `INSERT INTO tokens (uuid, workspace_id, name, token_hash, scopes, created_at, last_used_at, revoked_at)
     SELECT o.id::uuid, w.id, o.name, decode(o.token_hash, 'hex'), o.scopes::json, o.created_at::timestamptz, o.last_used_at::timestamptz, o.revoked_at::timestamptz
     FROM legacy_tokens o JOIN workspaces w ON w.name = o.workspace ORDER BY o.created_at, o.id`,
  ],
  [
    "idempotency_keys",
    // request_hash held either the API's fingerprint of a request (never compared) or, on a
    // row the engine stored, the SHA-256 of its call's name; only the one call with a compact
    // answer (a keyed contribution bulk) is named in answer_form, everything else is NULL.
    `INSERT INTO idempotency_keys (workspace_id, key, answer_form, state, status, headers, body, owner, created_at, expires_at)
     SELECT w.id, o.key, CASE o.request_hash WHEN '808ff7c2108644ab04bf8bca69f7da3a78e0e174458ccc53d15a9c8a27aa3dac' THEN 'POST /contributions/bulk' END, o.state, o.status, o.headers::json, o.body, o.owner, ${ms("o.created_at")}, ${ms("o.expires_at")}
     FROM legacy_idempotency_keys o JOIN workspaces w ON w.name = o.workspace`,
  ],
  [
    "webhooks",
    `INSERT INTO webhooks (uuid, workspace_id, url, events, description, secret, created_at, deleted_at)
     SELECT o.id::uuid, w.id, o.url, o.events::jsonb, o.description, o.secret, o.created_at::timestamptz, o.deleted_at::timestamptz
     FROM legacy_webhooks o JOIN workspaces w ON w.name = o.workspace ORDER BY o.created_at, o.id`,
  ],
  [
    "webhook_deliveries",
    `INSERT INTO webhook_deliveries (uuid, webhook_id, message_id, event_type, payload, status, attempts, last_status_code, last_error, next_attempt_at,
       created_at, delivered_at)
     SELECT o.id::uuid, h.id, substr(o.message_id, 5)::uuid, o.event_type, o.payload::json, o.status, o.attempts, o.last_status_code, o.last_error,
       ${ms("o.next_attempt_at")}, o.created_at::timestamptz, o.delivered_at::timestamptz
     FROM legacy_webhook_deliveries o JOIN webhooks h ON h.uuid = o.webhook_id::uuid ORDER BY o.created_at, o.id`,
  ],
  ["settings", "INSERT INTO settings (name, value) SELECT name, value FROM legacy_settings"],
];

/** Applies schema 2 to a database at schema 1, inside the caller's transaction. */
export async function compactKeys(tx: postgres.TransactionSql, progress?: OnMigrationProgress): Promise<void> {
  const old = COPIES.map(([table]) => table);
  const indexes = await tx.unsafe<{ name: string }[]>(`SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ANY($1::text[])`, [old]);
  for (const { name } of indexes) await tx.unsafe(`ALTER INDEX ${name} RENAME TO legacy_${name}`);
  for (const table of old) await tx.unsafe(`ALTER TABLE ${table} RENAME TO legacy_${table}`);
  for (const table of TABLES) await tx.unsafe(createTableSql("postgres", table));
  for (const table of TABLES) for (const index of indexesOn("postgres", table)) await tx.unsafe(createIndexSql(table, index));
  const counts = new Map<string, number>();
  for (const table of old) counts.set(table, Number((await tx.unsafe(`SELECT COUNT(*)::bigint AS n FROM legacy_${table}`))[0].n));
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  let done = 0;
  for (const [table, sql] of COPIES) {
    if (table === "contributions") {
      await tx.unsafe("CREATE TEMPORARY TABLE legacy_field_keys (id text PRIMARY KEY, key bigint NOT NULL) ON COMMIT DROP");
      await tx.unsafe("INSERT INTO legacy_field_keys (id, key) SELECT uuid::text, id FROM fields");
    }
    const result = await tx.unsafe(sql);
    done += result.count;
    // Rows the copy could not place (a reference to nothing) would be lost: refuse instead.
    if (result.count !== counts.get(table)) throw new Error(`upgrading ${table}: ${counts.get(table)} rows, ${result.count} copied; nothing was changed`);
    progress?.({ migration: "0002-compact-keys", step: table, done, total });
  }
  await tx.unsafe(`UPDATE contributions n SET supersedes = p.id FROM legacy_contributions o JOIN contributions p ON p.uuid = o.supersedes::uuid
    WHERE o.supersedes IS NOT NULL AND n.uuid = o.id::uuid`);
  for (const table of [...old].reverse()) await tx.unsafe(`DROP TABLE legacy_${table}`);
  for (const table of TABLES) await tx.unsafe(`ANALYZE ${table.name}`);
}
