// The ceiling of an import into the project's own SQLite tables: raw prepared statements
// writing exactly the rows a `ddsctl import contributions` of the same file stores (a record
// per new identity, a contribution per line with its values keyed by field key, the earlier
// contribution of the same source and record marked superseded), 1,000 lines per
// transaction, with no checks, no keys of requests, no pipeline bookkeeping. What an import
// could reach at best on this schema; the import's ratio to it is what its own work costs.
// With `resolved`, each record is written resolved as well: its data, sha256, issues and a
// lineage of the compact form's size when first seen, and once more at the end if a later
// line gave it other values (the least a load that ends resolved must write).
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { newId as uuidv7 } from "../../dist/util/ids.js";
import { createLocalEngine } from "../../dist/engine/local-engine.js";
import { uuidBytes } from "../../dist/engine/store/values.js";

/** Creates the shape's models and contexts in `db` (the project's schema); returns their keys. */
async function prepare(db, shape) {
  const engine = createLocalEngine({ db });
  const models = new Map();
  for (const m of shape.models) {
    const created = await engine.setModelStatus((await engine.createModel(m)).modelId, "active");
    models.set(m.name, created);
  }
  for (let i = 0; i < shape.defaultContexts; i++) await engine.createContext({ name: `case-${i}` });
  await engine.close();
}

/** A lineage of the size the compact encoding gives one source per field. */
const lineageOf = (contributionId, o) => `[3,[["${contributionId}","${o.sourceId}","${o.sourceType}"]],"latest",{${Object.keys(o.data).map((k) => `"${k}":0`).join(",")}}]`;
const sha256 = (text) => createHash("sha256").update(text).digest();

/** Runs the ceiling on `file` into a new database at `db`; returns its seconds. */
export async function sqliteCeiling(db, file, shape, { resolved = false } = {}) {
  await prepare(db, shape);
  const raw = new Database(db);
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = NORMAL");
  raw.pragma("wal_autocheckpoint = 10000");
  const contexts = new Map(raw.prepare("SELECT name, id FROM contexts").all().map((r) => [r.name, r.id]));
  const models = new Map(raw.prepare("SELECT name, id FROM models").all().map((r) => [r.name, r.id]));
  const fields = new Map();
  for (const f of raw.prepare("SELECT m.name AS model, f.name, f.id FROM fields f JOIN models m ON m.id = f.model_id").all()) fields.set(`${f.model}.${f.name}`, f.id);
  const identity = new Map(shape.models.map((m) => [m.name, m.identity ?? []]));
  const insertRecord = raw.prepare(
    resolved
      ? "INSERT INTO records (uuid, workspace_id, context_id, model_id, identity_key, created_by, created_at, updated_at, data, sha256, issues, lineage, changed_version) VALUES (?, 1, ?, ?, ?, 'bench', ?, ?, ?, ?, '[]', ?, 0)"
      : "INSERT INTO records (uuid, workspace_id, context_id, model_id, identity_key, created_by, created_at, updated_at) VALUES (?, 1, ?, ?, ?, 'bench', ?, ?)",
  );
  const updateRecord = raw.prepare("UPDATE records SET data = ?, sha256 = ?, lineage = ? WHERE id = ?");
  /** Records given other values after their first line: written once more at the end. */
  const later = new Map();
  const insertContribution = raw.prepare(
    `INSERT INTO contributions (uuid, workspace_id, record_id, source_id, source_type, data, field_confidences, status, supersedes, received_at, created_by)
     VALUES (?, 1, ?, ?, ?, ?, ?, 'accepted', ?, ?, 'bench')`,
  );
  const supersede = raw.prepare("UPDATE contributions SET status = 'superseded' WHERE id = ?");
  const records = new Map();
  const heads = new Map();
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let batch = [];
  const write = raw.transaction((items) => {
    const now = Date.now();
    for (const o of items) {
      const model = models.get(o.modelName);
      const context = contexts.get(o.contextRef);
      const key = JSON.stringify(identity.get(o.modelName).map((n) => o.data[n]));
      const recordKey = `${context}\u0000${model}\u0000${key}`;
      let record = records.get(recordKey);
      const contributionId = uuidv7();
      if (record === undefined) {
        const id = uuidBytes(uuidv7());
        if (resolved) {
          const data = JSON.stringify(o.data);
          record = Number(insertRecord.run(id, context, model, key, now, now, data, sha256(data), lineageOf(contributionId, o)).lastInsertRowid);
        } else record = Number(insertRecord.run(id, context, model, key, now, now).lastInsertRowid);
        records.set(recordKey, record);
      } else if (resolved) later.set(record, { contributionId, o });
      const values = {};
      for (const [name, v] of Object.entries(o.data)) values[`f${fields.get(`${o.modelName}.${name}`)}`] = v;
      let confidences = null;
      for (const [name, c] of Object.entries(o.fieldConfidences ?? {})) if (c !== 1) (confidences ??= {})[`f${fields.get(`${o.modelName}.${name}`)}`] = c;
      const head = `${record}\u0000${o.sourceId}`;
      const previous = heads.get(head);
      if (previous !== undefined) supersede.run(previous);
      const id = Number(
        insertContribution.run(uuidBytes(contributionId), record, o.sourceId, o.sourceType, JSON.stringify(values), confidences && JSON.stringify(confidences), previous ?? null, now).lastInsertRowid,
      );
      heads.set(head, id);
    }
  });
  const t0 = performance.now();
  for await (const line of lines) {
    batch.push(JSON.parse(line));
    if (batch.length === 1000) {
      write(batch);
      batch = [];
    }
  }
  if (batch.length) write(batch);
  if (resolved) {
    const rewrite = raw.transaction((items) => {
      for (const [record, { contributionId, o }] of items) {
        const data = JSON.stringify(o.data);
        updateRecord.run(data, sha256(data), lineageOf(contributionId, o), record);
      }
    });
    const items = [...later];
    for (let i = 0; i < items.length; i += 1000) rewrite(items.slice(i, i + 1000));
  }
  const seconds = (performance.now() - t0) / 1000;
  raw.close();
  return seconds;
}
