import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ImportLedger } from "../../src/cli/commands/import/import-ledger.js";
import type { ImportOptions, ImportStart } from "../../src/cli/commands/import/import-setup.js";
import { WindowWork } from "../../src/cli/commands/import/window-work.js";
import { RejectsWriter } from "../../src/cli/ndjson/rejects.js";

/** A ledger over a temporary checkpoint path, in the deferred mode of a local import. */
function deferredLedger() {
  const dir = mkdtempSync(join(tmpdir(), "ddsctl-ledger-"));
  const checkpoint = join(dir, "in.ndjson.checkpoint.json");
  const opts = { kind: "contributions", input: join(dir, "in.ndjson"), rejects: undefined, checkpoint, resume: false, maxErrors: undefined, dryRun: false } as unknown as ImportOptions;
  const start = { skipUntil: 0, checkpointBase: { version: 1, kind: "contributions", input: { path: "-" } } } as unknown as ImportStart;
  const ledger = new ImportLedger(opts, start, RejectsWriter.fresh(undefined), undefined, true);
  ledger.deferred = true;
  const read = () => (existsSync(checkpoint) ? (JSON.parse(readFileSync(checkpoint, "utf8")) as { lastCompletedLine: number; complete: boolean }) : undefined);
  return { ledger, read };
}

/** A finished window of lines first..last. */
function window(first: number, last: number): WindowWork {
  const lines = Array.from({ length: last - first + 1 }, (_, i) => ({ no: first + i, text: "{}", bytes: 3 }));
  return new WindowWork({ first, last, lines, digest: { sha256: `h${last}`, bytes: last * 3 } } as never);
}

describe("the import ledger under write groups", () => {
  it("moves the checkpoint only when the group is durable, never past uncommitted lines", () => {
    const { ledger, read } = deferredLedger();
    ledger.commit(window(1, 100));
    ledger.commit(window(101, 200));
    expect(read()).toBeUndefined();
    ledger.durable();
    expect(read()?.lastCompletedLine).toBe(200);
    ledger.commit(window(201, 300));
    expect(read()?.lastCompletedLine).toBe(200);
    ledger.durable();
    expect(read()?.lastCompletedLine).toBe(300);
  });

  it("a group whose commit failed is never recorded, not even by finish", () => {
    const { ledger, read } = deferredLedger();
    ledger.commit(window(1, 100));
    ledger.durable();
    ledger.commit(window(101, 200)); // its group's commit fails: durable() is not called
    ledger.finish(false);
    expect(read()).toMatchObject({ lastCompletedLine: 100, complete: false });
  });
});
