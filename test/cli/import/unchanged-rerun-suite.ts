import { writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ddsctl, type Sandbox } from "../../helpers/cli.js";
import { contribution, setupModels, writeLines, type Summary } from "./support.js";

/**
 * The re-run cases of issue 24 on one engine: `newBox` gives a sandbox on an empty database
 * of that engine (SQLite locally or through serve; PostgreSQL in test/postgres).
 */
export function describeUnchangedRerun(engine: string, newBox: () => Promise<Sandbox>): void {
let box: Sandbox;
beforeEach(async () => {
  box = await newBox();
  await setupModels(box);
});
afterEach(() => box.cleanup());

/** Contexts a run of this test owns (remote runs share one server's workspace per sandbox). */
const ctxOf = (i: number) => `rerun-${i % 6}`;

/**
 * 600 lines: each applicant of its own (a new record), some with a second line of the same
 * source (superseding) and of another source, so `majority`-free but order-sensitive ties
 * exist; `bad` lines are written broken (a value of the wrong type).
 */
function lines(bad: ReadonlySet<number>): string[] {
  const out: string[] = [];
  for (let i = 0; i < 600; i++) {
    const applicant = `a${Math.floor(i / 2)}`;
    const source = i % 2 === 0 ? "bureau" : i % 4 === 1 ? "bureau" : "crm";
    const name = bad.has(i) ? 7 : `Applicant ${i}`;
    out.push(contribution(ctxOf(Math.floor(i / 2)), "Applicant", source, { applicantId: applicant, name, creditScore: 600 + (i % 50) }));
  }
  return out;
}

/** Every contribution (id → receivedAt and status) and every record (id → sha256), as the service lists them. */
async function state(): Promise<{ contributions: Map<string, string>; records: Map<string, string>; recordOf: Map<string, string> }> {
  const list = async (noun: string) => (await ddsctl(box, [noun, "list", "--all", "--limit", "500", "--json"])).json().data as Record<string, string>[];
  const listed = (await list("contributions")).filter((c) => ctxNames.has(c.contextId));
  const contributions = new Map(listed.map((c) => [c.contributionId, `${c.receivedAt} ${c.status}`]));
  const recordOf = new Map(listed.map((c) => [c.contributionId, c.recordId]));
  const records = new Map((await list("records")).filter((r) => ctxNames.has(r.contextId)).map((r) => [r.recordId, r.sha256]));
  return { contributions, records, recordOf };
}
let ctxNames = new Set<string>();
async function learnContexts(): Promise<void> {
  const contexts = (await ddsctl(box, ["contexts", "list", "--all", "--limit", "500", "--json"])).json().data as { contextId: string; name: string }[];
  ctxNames = new Set(contexts.filter((c) => c.name.startsWith("rerun-")).map((c) => c.contextId));
}

/** What is stored after the first run of a file with three broken lines. */
async function firstRun(file: string): Promise<Awaited<ReturnType<typeof state>>> {
  const first = await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--json"]);
  expect(first.exitCode, first.stderr).toBe(3);
  expect(first.json<Summary>()).toMatchObject({ lines: 600, created: 597, failed: 3, unchanged: 0 });
  await learnContexts();
  return state();
}

/**
 * After the fixed lines went in: exactly their three contributions are new, every one stored
 * before is as it was (received when it was, accepted or superseded as it was), and so is
 * every record but those the fixed lines gave evidence.
 */
function expectOnlyTheFixedLines(before: Awaited<ReturnType<typeof state>>, after: Awaited<ReturnType<typeof state>>): void {
  for (const [id, was] of before.contributions) expect(after.contributions.get(id), `contribution ${id}`).toBe(was);
  const added = [...after.contributions.keys()].filter((id) => !before.contributions.has(id));
  expect(added).toHaveLength(3);
  const touched = new Set(added.map((id) => after.recordOf.get(id)));
  for (const [id, was] of before.records) if (!touched.has(id)) expect(after.records.get(id), `record ${id}`).toBe(was);
}

describe(`a re-run changes nothing that did not change (${engine})`, () => {
  // Lines of the "crm" source, each the first of its source for its applicant: fixed, they supersede nothing.
  const bad = new Set([43, 251, 483]);

  it("rejected lines fixed in place, run again whole: only they are sent, whatever their windows' keys", async () => {
    const file = writeLines(box, "people.ndjson", lines(bad));
    const before = await firstRun(file);
    writeFileSync(file, lines(new Set()).map((l) => `${l}\n`).join(""));
    const again = await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--json"]);
    expect(again.exitCode, again.stderr).toBe(0);
    // What the first run stored is not sent again (its ledger); the fixed lines are new records.
    expect(again.json<Summary>()).toMatchObject({ lines: 600, created: 3, replayed: 597, unchanged: 0, superseded: 0, failed: 0 });
    expectOnlyTheFixedLines(before, await state());
    // And a third run sends nothing at all.
    const third = await ddsctl(box, ["import", "contributions", file, "--json"]);
    expect(third.json<Summary>()).toMatchObject({ lines: 600, created: 0, replayed: 600, failed: 0 });
  });

  it("in another database the same file is sent whole: an earlier run's ledger holds only where its contributions are", async () => {
    const file = writeLines(box, "people.ndjson", lines(new Set()));
    expect((await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--json"])).exitCode).toBe(0);
    const other = await newBox();
    try {
      await setupModels(other);
      const elsewhere = await ddsctl(other, ["import", "contributions", file, "--create-contexts", "--json"]);
      expect(elsewhere.exitCode, elsewhere.stderr).toBe(0);
      expect(elsewhere.json<Summary>()).toMatchObject({ lines: 600, created: 600, replayed: 0 });
    } finally {
      other.cleanup();
    }
  });

  it("rejected lines fixed in place, run with --resume: the same", async () => {
    const file = writeLines(box, "people.ndjson", lines(bad));
    const before = await firstRun(file);
    writeFileSync(file, lines(new Set()).map((l) => `${l}\n`).join(""));
    const again = await ddsctl(box, ["import", "contributions", file, "--resume", "--create-contexts", "--json"]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.json<Summary>()).toMatchObject({ created: 3, failed: 0 });
    expectOnlyTheFixedLines(before, await state());
  });

  it("the same contributions sent again under new keys (another file, or its keys expired): answered unchanged, nothing stored, nothing stale", async () => {
    // One line per source and record (a file of new records, as a feed is).
    const feed = Array.from({ length: 600 }, (_, i) => contribution(ctxOf(i), "Applicant", `feed-${i % 3}`, { applicantId: `p${i}`, name: `Person ${i}`, creditScore: 600 + (i % 50) }));
    const file = writeLines(box, "feed.ndjson", feed);
    const first = await ddsctl(box, ["import", "contributions", file, "--create-contexts", "--json"]);
    expect(first.exitCode, first.stderr).toBe(0);
    await learnContexts();
    const before = await state();
    // The same contributions in other bytes (a trailing space), in another file: other keys, no ledger.
    const copy = writeLines(box, "feed-again.ndjson", feed.map((l) => `${l} `));
    const again = await ddsctl(box, ["import", "contributions", copy, "--json"]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.json<Summary>()).toMatchObject({ lines: 600, created: 0, replayed: 0, unchanged: 600, superseded: 0, failed: 0 });
    expect(await state()).toEqual(before);
    const contexts = (await ddsctl(box, ["contexts", "list", "--all", "--json"])).json().data as { contextId: string; freshness: string }[];
    expect(contexts.filter((c) => ctxNames.has(c.contextId)).map((c) => c.freshness)).toEqual(Array(6).fill("resolved"));
  });
});
}
