import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DdsService } from "../../src/contract/service.js";
import { runImport } from "../../src/cli/commands/import/import-run.js";
import type { ImportOptions } from "../../src/cli/commands/import/import-setup.js";
import { openLocalEngine, type LocalEngine } from "../../src/engine/local-engine.js";
import { sandbox, type Sandbox } from "../helpers/cli.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { inspect } from "./support.js";

const LINES = 20_000;
const PET = { name: "Pet", identity: ["petId"], fields: [{ name: "petId", type: "string" as const }, { name: "age", type: "integer" as const }] };

let cluster: PgCluster;
let box: Sandbox;
beforeAll(async () => {
  cluster = await startPostgres();
  box = sandbox();
}, 60_000);
afterAll(async () => {
  box?.cleanup();
  await cluster?.stop();
});

function options(file: string, resume: boolean): ImportOptions {
  return {
    kind: "contributions",
    input: file,
    rejects: `${file}.rejects.ndjson`,
    checkpoint: `${file}.checkpoint.json`,
    resume,
    maxErrors: undefined,
    dryRun: false,
    createContexts: true,
    concurrency: 1,
    maxLineBytes: 1024 * 1024,
    stdin: process.stdin,
  };
}

/**
 * The engine, except that its second write group loses its connection just before it
 * commits: the group's backend is terminated from outside (a real failure of the real
 * database, as when the network drops), then the commit runs and fails.
 */
function failingSecondCommit(engine: LocalEngine, url: string): { service: DdsService; injected: () => boolean } {
  let groups = 0;
  let injected = false;
  const service: LocalEngine = {
    ...engine,
    writeGroup: () => {
      const group = engine.writeGroup!();
      const n = ++groups;
      return {
        rollback: () => group.rollback(),
        commit: async () => {
          if (n === 2) {
            const admin = inspect(url);
            try {
              const [row] = await admin.unsafe("SELECT COUNT(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'");
              injected = row.n === 1;
            } finally {
              await admin.end();
            }
          }
          await group.commit();
        },
      };
    },
  };
  return { service, injected: () => injected };
}

describe("an import on PostgreSQL whose group commit fails", () => {
  it("keeps its checkpoint behind the lost group, and --resume ends with every line stored once", async () => {
    const url = await cluster.createDatabase();
    const file = join(box.dir, "pets.ndjson");
    const lines = Array.from({ length: LINES }, (_, i) => JSON.stringify({ contextRef: `case-${i % 50}`, modelName: "Pet", sourceId: "feed", sourceType: "integration", data: { petId: `p${i}`, age: i % 20 } }));
    writeFileSync(file, `${lines.join("\n")}\n`);
    const setup = await openLocalEngine({ db: url });
    await setup.setModelStatus((await setup.createModel(PET)).modelId, "active");
    await setup.close();

    const engine = await openLocalEngine({ db: url });
    const { service, injected } = failingSecondCommit(engine, url);
    const first = await runImport(service, options(file, false));
    await engine.close();
    expect(injected(), "the second group's connection was terminated before its commit").toBe(true);
    expect(first.complete).toBe(false);
    expect(first.failure).toBeDefined();
    const checkpoint = JSON.parse(readFileSync(`${file}.checkpoint.json`, "utf8")) as { lastCompletedLine: number; complete: boolean };
    expect(checkpoint.complete).toBe(false);
    expect(first.failure!.doneThrough).toBe(checkpoint.lastCompletedLine);

    const outside = inspect(url);
    try {
      // Only the first group is in the database, and the checkpoint covers no more than it.
      const [stored] = await outside.unsafe("SELECT COUNT(*)::int AS n FROM contributions");
      expect(checkpoint.lastCompletedLine).toBeLessThanOrEqual(stored.n);

      const again = await openLocalEngine({ db: url });
      const resumed = await runImport(again, options(file, true));
      await again.close();
      expect(resumed.complete).toBe(true);
      expect(resumed.counts.skipped).toBe(checkpoint.lastCompletedLine);
      const [after] = await outside.unsafe("SELECT COUNT(*)::int AS n, COUNT(DISTINCT record_id)::int AS records FROM contributions");
      expect(after).toEqual({ n: LINES, records: LINES });
      const [keys] = await outside.unsafe("SELECT COUNT(*)::int AS n FROM idempotency_keys");
      expect(keys.n).toBe(LINES / 100);
    } finally {
      await outside.end();
    }
  }, 180_000);
});
