import Database from "better-sqlite3";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declaredShape, postgresShape, sqliteShape } from "../helpers/schema-shape.js";
import { views } from "../fixtures/releases/views.mjs";
import { until } from "../postgres/support.js";
import { startReceiver } from "../webhooks/support.js";
import { cli, cliJson, enlarge, killMigrationAt, releaseFixture, schemaState, startServe, type Target } from "./support.js";

/** How one fixture upgrades: its schema versions and the migration that rebuilds its tables. */
export interface UpgradeCase {
  fixture: string;
  from: number;
  to: number;
  migration: string;
  /** The migration copies the tables (the compact-keys rebuild), showing each as it goes; default true. */
  copies?: boolean;
  /** A target on a fresh copy of the fixture's database. */
  open(): Promise<Target>;
}

/** The webhook's URL in every fixture: nothing listens there. */
const FIXTURE_HOOK_URL = "http://127.0.0.1:9/fixture-hook";

interface Listing<T> {
  data: T[];
}
interface Delivery {
  deliveryId: string;
  status: string;
}
interface LegacyDelivery {
  id: string;
  message_id: string;
}

/**
 * A view the release recorded, in today's words: the one documented rename between its
 * answers and today's is the delivery status `delivered`, which the API has called
 * `succeeded` since webhooks gained statuses to filter by (it is still stored as
 * `delivered`; see webhook-view.ts). Nothing else is mapped.
 */
function inTodaysWords(name: string, view: unknown): unknown {
  if (name !== "deliveries") return view;
  const listing = view as Listing<Record<string, unknown>>;
  return { ...listing, data: listing.data.map((d) => (d.status === "delivered" ? { ...d, status: "succeeded" } : d)) };
}

/**
 * Where today's answer lost or changed what the release recorded, reading the recorded
 * view as a subset: every field it has, at any depth, present and equal today (today may
 * add fields); every array of the same length, item by item in order; every scalar and
 * null exactly equal. Empty when nothing was lost.
 */
function lostOrChanged(recorded: unknown, today: unknown, path = "$"): string[] {
  const differs = [`${path}: recorded ${JSON.stringify(recorded)}, today ${JSON.stringify(today)}`];
  if (Array.isArray(recorded)) {
    if (!Array.isArray(today) || today.length !== recorded.length) return differs;
    return recorded.flatMap((item, i) => lostOrChanged(item, today[i], `${path}[${i}]`));
  }
  if (recorded !== null && typeof recorded === "object") {
    if (today === null || typeof today !== "object" || Array.isArray(today)) return differs;
    const now = today as Record<string, unknown>;
    return Object.entries(recorded).flatMap(([key, value]) => (key in now ? lostOrChanged(value, now[key], `${path}.${key}`) : [`${path}.${key}: missing today`]));
  }
  return Object.is(recorded, today) ? [] : differs;
}

/** Hex of 16 bytes as a UUID's text. */
const uuidText = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`.toLowerCase();

/**
 * The pending deliveries as the release stored them: their ids as the API shows them. A
 * release of the compact schema keys rows by integer and keeps the API's ids in `uuid`
 * (16 bytes on SQLite); earlier ones keyed them by the id's text.
 */
async function pendingDeliveries(target: Target, compact: boolean): Promise<LegacyDelivery[]> {
  if (!compact) return target.query<LegacyDelivery>("SELECT id, message_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY created_at, id");
  if (target.kind === "sqlite") {
    const rows = await target.query<LegacyDelivery>("SELECT hex(uuid) AS id, hex(message_id) AS message_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY created_at, id");
    return rows.map((r) => ({ id: uuidText(r.id), message_id: `msg_${uuidText(r.message_id)}` }));
  }
  // The API (and the webhook-id header) shows a message id as msg_<uuid>.
  return target.query<LegacyDelivery>("SELECT uuid::text AS id, 'msg_' || message_id::text AS message_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY created_at, id");
}

/**
 * The upgrade of one release's database, through the real CLI: `ddsctl migrate`, then the
 * release's export and views read the same, its keyed requests replay on `ddsctl serve`,
 * its pending webhook deliveries go out signed with its secret, and its removed link stays
 * removed when the pipeline runs again.
 */
export function describeUpgrade(c: UpgradeCase): void {
  describe(`${c.fixture}: a database of schema ${c.from}, upgraded to ${c.to}`, () => {
    const fixture = releaseFixture(c.fixture);
    const { replay } = fixture;
    let target: Target;
    let pending: LegacyDelivery[];
    beforeAll(async () => {
      target = await c.open();
      // Read in the release's own schema, before anything upgrades it.
      pending = await pendingDeliveries(target, c.copies === false);
    });
    afterAll(async () => target?.cleanup());

    it("ddsctl migrate applies the pending migrations, showing each table it copies; migrate --check then passes", async () => {
      if (c.from === c.to) {
        // The last release's schema is today's: nothing to apply, and the check says so.
        const check = await cli(target, ["migrate", "--check", "--json"]);
        expect(check.exitCode, check.stderr).toBe(0);
        expect(JSON.parse(check.stdout)).toMatchObject({ version: c.to, latest: c.to, pending: 0 });
        return;
      }
      const before = await cli(target, ["migrate", "--check", "--json"]);
      expect(before.exitCode, before.stderr).toBe(1);
      expect(JSON.parse(before.stdout)).toMatchObject({ version: c.from, latest: c.to, pending: c.to - c.from });
      const run = await cli(target, ["migrate"]);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toContain(`applied ${c.to - c.from} migration(s); schema version ${c.to}`);
      if (c.copies ?? true) {
        for (const table of ["records", "contributions", "webhook_deliveries"]) {
          expect(run.stderr).toContain(`upgrading the database to this ddsctl's schema (${c.migration}): ${table}\n`);
        }
      }
      const check = await cli(target, ["migrate", "--check"]);
      expect(check.exitCode, check.stderr).toBe(0);
      expect(check.stdout).toContain(`schema version ${c.to}, up to date`);
    });

    it("the upgraded database has the declared schema: columns, types, defaults, checks, keys and indexes", async () => {
      const t = target as Target & { db?: string; url?: string };
      if (t.kind === "sqlite") {
        const raw = new Database(t.db!, { readonly: true });
        try {
          expect(sqliteShape(raw)).toEqual(declaredShape("sqlite"));
        } finally {
          raw.close();
        }
        return;
      }
      const sql = postgres(t.url!, { max: 1, onnotice: () => undefined });
      try {
        expect(await postgresShape(sql)).toEqual(declaredShape("postgres"));
      } finally {
        await sql.end();
      }
    });

    it("export --all is byte for byte the release's export", async () => {
      const r = await cli(target, ["export", "--all"]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(fixture.exported);
    });

    it("every view the release recorded reads the same (models, rules, fields, contexts, tokens, webhooks, deliveries, lineage, links, contributions, evaluations)", async () => {
      const recorded = Object.entries(views(replay.ids)).filter(([name]) => name in fixture.views);
      expect(recorded.length).toBeGreaterThanOrEqual(10);
      // Nothing the release answered is lost or changed: every field it recorded reads the
      // same today, at every depth, and every list has the same items in the same order.
      // Today's answers may carry fields the release did not have (a webhook's status,
      // disabledAt, disabledReason and failingSince; a delivery's messageId), so each
      // recorded view is compared as a subset of today's rather than equal to it; only the
      // documented renames are mapped (inTodaysWords).
      for (const [name, argv] of recorded) expect(lostOrChanged(inTodaysWords(name, fixture.views[name]), await cliJson(target, argv)), name).toEqual([]);
    });

    it("keeps the release's tokens, none of which expires (expiresAt null)", async () => {
      const listed = await cliJson<Listing<{ tokenId: string; expiresAt: string | null }>>(target, ["tokens", "list"]);
      expect(listed.data.length).toBeGreaterThan(0);
      expect(listed.data.map((t) => t.expiresAt)).toEqual(listed.data.map(() => null));
    });

    describe("on a real ddsctl serve", () => {
      let serve: Awaited<ReturnType<typeof startServe>>;
      let receiver: Awaited<ReturnType<typeof startReceiver>>;
      beforeAll(async () => {
        receiver = await startReceiver(() => replay.webhookSecret);
        // The fixture's webhook points nowhere; send it here instead.
        expect(await target.exec(`UPDATE webhooks SET url = '${receiver.url}' WHERE url = '${FIXTURE_HOOK_URL}'`)).toBe(1);
        // The fixture was made once, so its keys' day-long window has passed since: reopen
        // it (what is under test is the stored answer surviving the upgrade, not the clock).
        const reopen =
          target.kind === "sqlite"
            ? `UPDATE idempotency_keys SET expires_at = ${Date.now() + 3_600_000}`
            : "UPDATE idempotency_keys SET expires_at = now() + interval '1 hour'";
        expect(await target.exec(reopen)).toBeGreaterThanOrEqual(replay.requests.length);
        serve = await startServe(target);
      });
      afterAll(async () => {
        await serve?.stop();
        await receiver?.close();
      });

      it("replays every Idempotency-Key of the release: same status, body and Location, marked replayed", async () => {
        expect(replay.requests.length).toBeGreaterThanOrEqual(2);
        for (const r of replay.requests) {
          const res = await fetch(`${serve.origin}${r.path}`, {
            method: r.method,
            headers: { authorization: `Bearer ${replay.token}`, "content-type": "application/json", "idempotency-key": r.key },
            body: JSON.stringify(r.body),
          });
          expect(res.status, r.key).toBe(r.status);
          expect(res.headers.get("idempotent-replayed"), r.key).toBe("true");
          expect(res.headers.get("location"), r.key).toBe(r.location);
          expect(await res.json(), r.key).toEqual(r.response);
        }
      });

      it("delivers the pending deliveries, signed with the release's secret, under their message ids", async () => {
        const recorded = (fixture.views.deliveries as Listing<Delivery>).data.filter((d) => d.status === "pending");
        expect(recorded.length).toBeGreaterThan(0);
        expect(pending.map((d) => d.id).sort()).toEqual(recorded.map((d) => d.deliveryId).sort());
        const ids = pending.map((d) => d.message_id);
        await until(() => ids.every((id) => receiver.received.some((r) => r.id === id)), "the pending deliveries", 20_000);
        for (const id of ids) {
          const got = receiver.received.filter((r) => r.id === id);
          expect(got.every((r) => r.verified), `signature of ${id}`).toBe(true);
        }
        await until(async () => {
          const listed = await cliJson<Listing<Delivery>>(target, ["webhooks", "deliveries", replay.ids.webhook, "--all"]);
          // Stored as `delivered`, which the API calls `succeeded`.
          return pending.every((p) => listed.data.find((d) => d.deliveryId === p.id)?.status === "succeeded");
        }, "the deliveries marked succeeded", 20_000);
      });
    });

    it("a removed link stays removed when the pipeline runs the record's context again", async () => {
      const record = fixture.views.recordWithLineage as { recordId: string; contextId: string; modelId: string };
      // The removal itself came through the upgrade (the link the release's API removed).
      const [removals] = await target.query<{ n: number }>("SELECT COUNT(*) AS n FROM relationship_removals");
      expect(Number(removals.n)).toBe(1);
      const add = await cli(target, ["contributions", "add", "--context", record.contextId, "--model", record.modelId, "--source-id", "after-upgrade", "--source-type", "user", "--data", "fixtureNote=after-upgrade"]);
      expect(add.exitCode, add.stderr).toBe(0);
      // The pass ran (the new evidence is in the record), and linked the record again.
      const now = await cliJson<{ data: Record<string, unknown> }>(target, ["records", "get", record.recordId]);
      expect(now.data.fixtureNote).toBe("after-upgrade");
      expect(await cliJson(target, ["relationships", "list", record.recordId])).toEqual(fixture.views.links);
    });
  });
}

/** How a killed upgrade is checked on one engine. */
export interface KilledUpgradeCase {
  title: string;
  fixture: string;
  from: number;
  to: number;
  /** Records to add to a fresh copy (each with two contributions). */
  records: number;
  open(): Promise<Target>;
  /** Runs once the migration is killed, before the database is compared with its state before. */
  afterKill?(target: Target): Promise<void>;
}

/**
 * A test: an enlarged copy of a fixture, `ddsctl migrate` killed (SIGKILL) once it announces
 * the contributions step, the database then exactly as it was (schema version, every
 * table, column and index, every table's row count); migrated again, it completes with as
 * many contributions and records as before. Logs how long the full upgrade took.
 */
export function itSurvivesAKilledUpgrade(c: KilledUpgradeCase): void {
  it(c.title, async () => {
    const target = await c.open();
    try {
      await enlarge(target, c.records);
      const before = await schemaState(target);
      expect(before.version).toBe(c.from);
      expect(before.counts.contributions).toBeGreaterThan(2 * c.records);

      const killed = await killMigrationAt(target, "contributions");
      expect(killed.signal, killed.stderr).toBe("SIGKILL");
      await c.afterKill?.(target);
      expect(await schemaState(target)).toEqual(before);

      const started = performance.now();
      const run = await cli(target, ["migrate"]);
      const seconds = (performance.now() - started) / 1000;
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toContain(`applied ${c.to - c.from} migration(s); schema version ${c.to}`);
      console.log(`${c.fixture}: upgrade of ${before.counts.contributions} contributions and ${before.counts.records} records to schema ${c.to}: ${seconds.toFixed(1)} s`);
      const after = await schemaState(target);
      expect({ contributions: after.counts.contributions, records: after.counts.records }).toEqual({ contributions: before.counts.contributions, records: before.counts.records });
    } finally {
      await target.cleanup();
    }
    // Copying 100,000 contributions twice over is minutes on a machine busy with other work:
    // the bound is there to end a hang, not to time the upgrade (which the log line reports).
  }, 300_000);
}
