// A database of the earlier storage (SQLite schema 4: the release before the compact one)
// holding what a record-heavy import leaves: 100 contexts, one Applicant record and one
// contribution per line, an Idempotency-Key row per 100 lines. Built with that schema's own
// migrations (still shipped, to upgrade such files) and rows in its forms: text UUIDs, ISO
// times, values keyed by field id. For the upgrade bench line.
import Database from "better-sqlite3";
import { MIGRATIONS } from "../../dist/engine/store/sqlite/migrations/index.js";
import { newId } from "../../dist/util/ids.js";

/** Creates `path` at schema 4 with `rows` record-heavy lines' worth of rows. */
export async function legacyDatabase(path, rows) {
  const raw = new Database(path);
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = NORMAL");
  for (const m of MIGRATIONS.slice(0, 4)) m.apply(raw);
  raw.pragma("user_version = 4");
  const now = new Date().toISOString();
  const model = newId();
  const names = ["ssn", "name", "birthDate", "creditScore", "monthlyIncome"];
  const fields = names.map(() => newId());
  raw.prepare("INSERT INTO workspaces VALUES ('default', ?)").run(now);
  raw.prepare("INSERT INTO models (id, workspace, name, status, identity, relationships, compiled, created_at, updated_at) VALUES (?, 'default', 'Applicant', 'active', ?, '[]', NULL, ?, ?)").run(
    model,
    JSON.stringify([fields[0]]),
    now,
    now,
  );
  const field = raw.prepare("INSERT INTO fields (id, workspace, model_id, name, type, position, created_at, updated_at) VALUES (?, 'default', ?, ?, ?, ?, ?, ?)");
  names.forEach((n, i) => field.run(fields[i], model, n, i >= 3 ? "number" : "string", i, now, now));
  const contexts = Array.from({ length: 100 }, () => newId());
  const context = raw.prepare("INSERT INTO contexts (id, workspace, name, metadata, status, freshness, evidence_version, created_at, updated_at) VALUES (?, 'default', ?, '{}', 'active', 'stale', 1, ?, ?)");
  contexts.forEach((c, i) => context.run(c, `case-${i}`, now, now));
  const record = raw.prepare(
    "INSERT INTO records (id, workspace, context_id, model_id, identity_key, data, sha256, issues, lineage, created_at, updated_at, created_by) VALUES (?, 'default', ?, ?, ?, '{}', ?, '[]', '{}', ?, ?, 'local:bench')",
  );
  const contribution = raw.prepare(
    `INSERT INTO contributions (id, workspace, context_id, model_id, record_id, source_id, source_type, data, field_confidences, status, received_at, created_by)
     VALUES (?, 'default', ?, ?, ?, ?, 'integration', ?, ?, 'accepted', ?, 'local:bench')`,
  );
  const key = raw.prepare("INSERT INTO idempotency_keys (workspace, key, request_hash, state, status, headers, body, created_at, expires_at) VALUES ('default', ?, 'h', 'done', 200, '{}', ?, ?, ?)");
  const sha = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";
  raw.transaction(() => {
    let ids = [];
    for (let i = 0; i < rows; i++) {
      const r = newId();
      const k = newId();
      const ssn = String(100_000_000 + i);
      const data = { [fields[0]]: ssn, [fields[1]]: `Person ${i}`, [fields[2]]: "1970-01-11", [fields[3]]: 500 + (i % 350), [fields[4]]: 1500 + (i % 9000) };
      record.run(r, contexts[i % 100], model, JSON.stringify([ssn]), sha, now, now);
      contribution.run(k, contexts[i % 100], model, r, `feed-${i % 7}`, JSON.stringify(data), JSON.stringify({ [fields[3]]: 0.5 }), now);
      ids.push({ index: i % 100, status: 201, id: k });
      if (ids.length === 100) {
        const t = Date.now();
        key.run(`import:${i}`, JSON.stringify({ items: ids, summary: { total: 100, succeeded: 100, failed: 0 } }), t, t + 86_400_000);
        ids = [];
      }
    }
  })();
  raw.pragma("wal_checkpoint(TRUNCATE)");
  raw.close();
}
