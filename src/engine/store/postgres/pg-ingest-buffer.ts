import type postgres from "postgres";
import type { RecordWrite } from "../pass-store.js";
import { identityMapKey, sourceMapKey, UNRESOLVED_VERSION, type ContributionInsert, type FoundRecord, type IdentityKey, type RecordInsert, type ResolvedColumns, type SourceHead, type SourceKey } from "../evidence-repo.js";
import { copyIn, copyValue } from "./pg-copy.js";
import type { GroupConnection, StatementHook } from "./pg-group-connection.js";
import type { KnownIdentities } from "./pg-known-identities.js";
import type { KeyBlocks } from "./pg-key-blocks.js";
import { pgText } from "./pg-text.js";
import { flat } from "../../../util/flat-string.js";

const RECORD_COLUMNS = ["id", "uuid", "workspace_id", "context_id", "model_id", "identity_key", "created_by", "created_at", "updated_at", "data", "sha256", "issues", "lineage", "changed_version"];
const CONTRIBUTION_COLUMNS = ["id", "uuid", "workspace_id", "record_id", "source_id", "source_type", "data", "field_confidences", "status", "supersedes", "observed_at", "received_at", "created_by"];
const MARK_SUPERSEDED = "UPDATE contributions SET status = 'superseded' WHERE id = ANY($1::bigint[])";

/** A record held for COPY: its line up to its resolved columns, which the group's pass may still fill in. */
interface HeldRecord {
  key: number;
  /** Its line up to created_at. */
  head: string;
  createdAt: string;
  /** Set by the pass run as the group ends (see `resolve`), with the pass's time: copied resolved, not updated after. */
  resolved?: { write: RecordWrite; at: string };
  /**
   * Its columns as its writer resolved it alone (see RecordInsert.resolved): a pass of the
   * group that took it as it is finds nothing to write, and it is copied so, clean.
   */
  alone?: ResolvedColumns;
  /** Set when it must be read by its context's next pass after all (see `stamp`): copied unresolved then, unless a pass resolved it. */
  stamped?: boolean;
}

/**
 * A record's COPY line: as the group's pass resolved it; as its writer resolved it alone,
 * when `clean` (the group's passes ran, and it was not stamped since); else unresolved
 * (NULLs and the unresolved mark), for the next pass of its context.
 */
const recordLine = (r: HeldRecord, clean: boolean): string =>
  r.resolved
    ? `${r.head}\t${r.resolved.write.dataChanged ? r.resolved.at : r.createdAt}\t${copyValue(r.resolved.write.data)}\t\\\\x${r.resolved.write.sha256}\t${copyValue(r.resolved.write.issues)}\t${copyValue(r.resolved.write.lineage)}\t0\n`
    : r.alone && clean && !r.stamped
      ? `${r.head}\t${r.createdAt}\t${copyValue(r.alone.data)}\t\\\\x${r.alone.sha256}\t${copyValue(r.alone.issues)}\t${copyValue(r.alone.lineage)}\t0\n`
      : `${r.head}\t${r.createdAt}\t\\N\t\\N\t\\N\t\\N\t${UNRESOLVED_VERSION}\n`;

/** A contribution held for COPY: its line around the status, which a later call may still change. */
interface HeldContribution {
  key: number;
  head: string;
  tail: string;
  status: "accepted" | "superseded";
  /** Set once its COPY is queued: from then on it is a row of the database. */
  copied: boolean;
}

/** Statements an import sends that mean the rows must be in the database first: any naming an evidence table. */
const EVIDENCE = /\b(records|contributions)\b/;
const WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;
/** A savepoint inside a call (PgTx's nested transactions): its writes go straight to the tables. */
const NESTED = "SAVEPOINT dds_sp";
const NESTED_END = "RELEASE SAVEPOINT dds_sp";

/**
 * The records and contributions a write group's calls insert, held in memory and written
 * with `COPY … FROM STDIN` (before the group commits, or sooner: see `copy`), and what the
 * calls' lookups need to see them: records by identity, and each record and source's
 * accepted contribution. Everything else of a call goes to the database as it comes.
 *
 * Guarantees:
 * - A call that fails leaves nothing here: what it added is undone with its savepoint,
 *   and rows of earlier calls copied inside its savepoint are held again.
 * - Any other statement that names `records` or `contributions` (a read of the replay
 *   copy of a key, a record deleted in the same group) runs after every held row has been
 *   copied; one that writes them also makes the lookups forget what they know, since the
 *   database may now say otherwise.
 * - Inside a nested savepoint of a call nothing is held: the rows go straight to the
 *   tables (pg-ingest.ts), so rolling it back needs nothing here.
 * - An identity looked up in a context the store knows (pg-known-identities.ts), checked
 *   under the group's lock, is absent unless held or made by an earlier group: only those
 *   are asked of the database.
 */
export class IngestBuffer implements StatementHook {
  private records: HeldRecord[] = [];
  private readonly recordsByKey = new Map<number, HeldRecord>();
  /**
   * Set while the group's passes run (see `resolving`): their reads and writes name records
   * and contributions, of the rows the database holds already, and copy nothing.
   */
  resolving = false;
  /** Set once a statement made the group copy its rows before its end (the journal's rows are then in the tables). */
  copiedEarly = false;
  /** Set once the group's passes have run on the rows still held: records resolved alone are copied clean from then on. */
  passesRan = false;
  private contributions: HeldContribution[] = [];
  /** Keys of rows already in the database to mark superseded. */
  private stored: number[] = [];
  private readonly identities = new Map<string, FoundRecord>();
  /** Records this group created: their accepted contributions are all in `heads`. */
  private readonly created = new Set<number>();
  private readonly heads = new Map<string, SourceHead>();
  private readonly byKey = new Map<number, HeldContribution>();
  /** The identities of the records this group made, with their contexts (for `known`). */
  private made: [number, string][] = [];
  /** Contexts checked in this group (under its lock), with the identities earlier groups made there. */
  private readonly checked = new Map<number, { version: number; identities: Set<string> }>();
  /** The running call's undo steps, newest last (none outside a call). */
  private undo: (() => void)[] | undefined;
  private nested = 0;
  private readonly lookups: Set<string>;

  constructor(
    private readonly keys: KeyBlocks,
    private readonly known: KnownIdentities,
    lookups: readonly string[],
  ) {
    // The store's own lookups consult what is held first, and ask the database only for the rest.
    this.lookups = new Set(lookups.map((sql) => pgText(sql).text));
  }

  /** Whether calls' rows are held now (not inside a nested savepoint). */
  get holding(): boolean {
    return this.nested === 0;
  }

  /** A call starts: what it adds can be undone until `endCall`. */
  beginCall(): void {
    this.undo = [];
    this.nested = 0;
  }

  /** A call ends: kept (its savepoint released) or undone (rolled back). */
  endCall(kept: boolean): void {
    const steps = this.undo ?? [];
    this.undo = undefined;
    this.nested = 0;
    if (!kept) for (let i = steps.length - 1; i >= 0; i--) steps[i]();
  }

  /**
   * Records by identity among the held ones. `missing` are to look up in the database, and
   * `unchecked` the contexts to check (see `check`): a key of a checked context that is
   * neither held nor made by an earlier group has no record.
   */
  findRecords(keys: readonly IdentityKey[]): { found: Map<string, FoundRecord>; missing: IdentityKey[]; unchecked: number[] } {
    const found = new Map<string, FoundRecord>();
    const missing: IdentityKey[] = [];
    const unchecked = new Set<number>();
    for (const k of keys) {
      const mk = identityMapKey(k);
      const hit = this.identities.get(mk);
      if (hit) {
        found.set(mk, hit);
        continue;
      }
      const context = this.checked.get(k.contextKey);
      if (context === undefined) unchecked.add(k.contextKey);
      if (context === undefined || context.identities.has(mk)) missing.push(k);
    }
    return { found, missing, unchecked: [...unchecked] };
  }

  /** Contexts as the group reads them under its lock: their evidence version, and whether they have live records. */
  check(rows: readonly { id: number; version: number; used: boolean }[]): void {
    for (const r of rows) {
      const identities = this.known.check(r.id, r.version, r.used);
      if (!identities) continue;
      this.checked.set(r.id, { version: r.version, identities });
      // A call that fails gives its row locks back: its checks are worth nothing then.
      this.undo?.push(() => this.checked.delete(r.id));
    }
  }

  /** The group committed, leaving these contexts at these evidence versions: what it made becomes known. */
  committed(versions: ReadonlyMap<number, number>): void {
    this.known.commit(this.checked, this.made, versions);
  }

  /** Accepted contributions among the held ones (a record this group created has no other); `missing` are for the database. */
  acceptedFromSources(keys: readonly SourceKey[]): { found: Map<string, SourceHead>; missing: SourceKey[] } {
    const found = new Map<string, SourceHead>();
    const missing: SourceKey[] = [];
    for (const k of keys) {
      const mk = sourceMapKey(k);
      const hit = this.heads.get(mk);
      if (hit) found.set(mk, hit);
      else if (!this.created.has(k.recordKey)) missing.push(k);
    }
    return { found, missing };
  }

  async addRecords(ws: number | undefined, rows: readonly RecordInsert[]): Promise<void> {
    const keys = await this.keys.take("records", rows.length);
    const added: string[] = [];
    const w = copyValue(ws);
    rows.forEach((r, i) => {
      r.key = keys[i];
      const mk = identityMapKey(r);
      this.identities.set(mk, { key: r.key, id: r.id });
      this.created.add(r.key);
      this.made.push([r.contextKey, mk]);
      added.push(mk);
      // Flat: a row's text waits for the COPY at the group's end (flat-string.ts).
      const held: HeldRecord = { key: r.key, head: flat(`${r.key}\t${r.id}\t${w}\t${r.contextKey}\t${r.modelKey}\t${copyValue(r.identityKey)}\t${copyValue(r.createdBy)}\t${r.now}`), createdAt: r.now };
      if (r.resolved && r.clean) held.alone = r.resolved;
      this.records.push(held);
      this.recordsByKey.set(r.key, held);
    });
    // Undone newest first: by then this call's rows are the last ones held again.
    this.undo?.push(() => {
      for (const k of keys) this.recordsByKey.delete(k);
      this.records.length -= rows.length;
      this.made.length -= rows.length;
      for (const mk of added) this.identities.delete(mk);
      for (const k of keys) this.created.delete(k);
    });
  }

  async addContributions(ws: number | undefined, rows: readonly ContributionInsert[]): Promise<void> {
    const keys = await this.keys.take("contributions", rows.length);
    rows.forEach((c, i) => (c.key = keys[i]));
    const w = copyValue(ws);
    const held: HeldContribution[] = [];
    const replaced: [string, SourceHead | undefined][] = [];
    for (const c of rows) {
      const supersedes = c.supersedesRow?.key ?? c.supersedesKey;
      const row: HeldContribution = {
        key: c.key!,
        head: flat(`${c.key}\t${c.id}\t${w}\t${c.recordKey}\t${copyValue(c.sourceId)}\t${copyValue(c.sourceType)}\t${copyValue(c.data)}\t${copyValue(c.fieldConfidences)}\t`),
        tail: flat(`\t${copyValue(supersedes)}\t${copyValue(c.observedAt)}\t${c.receivedAt}\t${copyValue(c.createdBy)}\n`),
        status: c.status,
        copied: false,
      };
      held.push(row);
      this.byKey.set(row.key, row);
      this.contributions.push(row);
      if (c.status === "accepted") {
        const mk = sourceMapKey(c);
        replaced.push([mk, this.heads.get(mk)]);
        this.heads.set(mk, {
          id: c.id,
          key: row.key,
          sourceType: c.sourceType,
          data: c.data,
          confidences: c.fieldConfidences,
          observedAt: c.observedAt,
          receivedAt: c.receivedAt,
          createdBy: c.createdBy,
          supersedes: c.supersedesId,
        });
      }
    }
    this.undo?.push(() => {
      this.contributions.length -= held.length;
      for (const c of held) this.byKey.delete(c.key);
      for (let i = replaced.length - 1; i >= 0; i--) {
        const [mk, before] = replaced[i];
        if (before) this.heads.set(mk, before);
        else this.heads.delete(mk);
      }
    });
  }

  /** Marks contributions superseded: a held one in memory, one in the database at the next copy. */
  supersede(keys: readonly number[]): void {
    for (const key of keys) {
      const row = this.byKey.get(key);
      if (row && !row.copied) {
        const before = row.status;
        row.status = "superseded";
        this.undo?.push(() => (row.status = before));
      } else {
        this.stored.push(key);
        this.undo?.push(() => void this.stored.pop());
      }
    }
  }

  /**
   * The group's pass resolved these records: those still held are copied resolved (their
   * resolved columns set now); the others, already in the tables, are returned to update.
   */
  resolve(writes: readonly RecordWrite[], at: string): RecordWrite[] {
    const stored: RecordWrite[] = [];
    for (const w of writes) {
      const held = this.recordsByKey.get(w.key);
      if (!held) {
        stored.push(w);
        continue;
      }
      const before = held.resolved;
      held.resolved = { write: w, at };
      this.undo?.push(() => (held.resolved = before));
    }
    return stored;
  }

  /**
   * Records to stamp with their context's version (their evidence changed, or no pass of the
   * group resolved their context): those held lose their resolved-alone state (copied
   * unresolved, unless a pass resolves them); returns the others, rows of the tables.
   */
  stamp(keys: Iterable<number>): number[] {
    const stored: number[] = [];
    for (const key of keys) {
      const held = this.recordsByKey.get(key);
      // Never undone: a record copied unresolved is only read again by its next pass.
      if (held) held.stamped = true;
      else stored.push(key);
    }
    return stored;
  }

  /** Whether rows are held that the database does not have yet. */
  get pending(): boolean {
    return this.records.length > 0 || this.contributions.length > 0 || this.stored.length > 0;
  }

  /**
   * Queues the held rows' COPY on `conn` (exclusive: statements sent after it wait for it),
   * taking them now: rows added later are for the next one. Inside a call, undoing it
   * holds them again (the savepoint's rollback takes them out of the tables).
   */
  copy(conn: GroupConnection): Promise<void> {
    if (!this.pending) return Promise.resolve();
    const records = this.records;
    const contributions = this.contributions;
    const stored = this.stored;
    this.records = [];
    this.contributions = [];
    this.stored = [];
    for (const c of contributions) c.copied = true;
    // Copied, a record is a row of the table: a pass after this updates it.
    for (const r of records) this.recordsByKey.delete(r.key);
    this.undo?.push(() => {
      for (const r of records) this.recordsByKey.set(r.key, r);
      this.records = [...records, ...this.records];
      this.contributions = [...contributions, ...this.contributions];
      this.stored = [...stored, ...this.stored];
      for (const c of contributions) c.copied = false;
    });
    const lines = contributions.map((c) => c.head + c.status + c.tail);
    const recordLines = records.map((r) => recordLine(r, this.passesRan));
    return conn.exclusive(async () => {
      // Superseded first: the unique index on accepted contributions takes the new ones after.
      const marked = stored.length > 0 ? conn.raw.unsafe(MARK_SUPERSEDED, [stored]).execute() : undefined;
      marked?.catch(() => undefined);
      if (records.length > 0) await copyIn(conn.raw, "records", RECORD_COLUMNS, recordLines);
      if (lines.length > 0) await copyIn(conn.raw, "contributions", CONTRIBUTION_COLUMNS, lines);
      await marked;
    });
  }

  /** Nothing held is known any more: lookups ask the database (every held row has been queued for it). */
  private forget(): void {
    this.known.clear();
    this.checked.clear();
    this.made = [];
    this.identities.clear();
    this.created.clear();
    this.recordsByKey.clear();
    this.heads.clear();
    this.byKey.clear();
  }

  before(text: string, conn: GroupConnection): void {
    if (this.resolving) return;
    if (text === NESTED) {
      if (this.pending) this.copiedEarly = true;
      void this.copy(conn).catch(() => undefined);
      this.forget();
      this.nested++;
      return;
    }
    if (text === NESTED_END) {
      this.nested = Math.max(0, this.nested - 1);
      return;
    }
    if (this.lookups.has(text) || !EVIDENCE.test(text)) return;
    if (this.pending) this.copiedEarly = true;
    // The statement fails on its own if the copy did (the transaction is aborted then).
    void this.copy(conn).catch(() => undefined);
    if (WRITE.test(text)) this.forget();
  }
}
