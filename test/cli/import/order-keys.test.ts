import { describe, expect, it } from "vitest";
import type { Model } from "../../../src/contract/schemas/index.js";
import { contributionOrderKey } from "../../../src/cli/commands/import/order-keys.js";
import { Dispatcher, recordOrderKey } from "../../../src/cli/ndjson/dispatcher.js";

const CTX = "0190a0f0-0000-7000-8000-00000000000c";
const person = { modelId: "0190a0f0-0000-7000-8000-0000000000a1", identity: ["ssn"] } as unknown as Model;
const loan = { modelId: "0190a0f0-0000-7000-8000-0000000000b2", identity: [] } as unknown as Model;
const line = (data: unknown, extra: Record<string, unknown> = {}) => ({ contextId: CTX.toUpperCase(), modelId: person.modelId, data, ...extra });

describe("the order key of a contribution line", () => {
  it("is its record when the line tells which: identity values compared as text, or a model without identity", () => {
    const a = contributionOrderKey(line({ ssn: "123" }), person);
    expect(a).toBe(contributionOrderKey(line({ ssn: 123 }), person));
    expect(a).toBe(contributionOrderKey(line({ ssn: " 123 " }), person));
    expect(a).not.toBe(contributionOrderKey(line({ ssn: "124" }), person));
    expect(a?.startsWith(CTX)).toBe(true);
    expect(contributionOrderKey(line({ amount: 1 }), loan)).not.toBe(CTX);
  });

  it("is the whole context when it cannot tell: an explicit record, an unknown model, odd or missing identity values", () => {
    expect(contributionOrderKey(line({ ssn: "1" }, { recordId: "r" }), person)).toBe(CTX);
    expect(contributionOrderKey(line({ ssn: "1" }), undefined)).toBe(CTX);
    expect(contributionOrderKey(line({ ssn: { n: 1 } }), person)).toBe(CTX);
    expect(contributionOrderKey(line({ name: "no ssn" }), person)).toBe(CTX);
    expect(contributionOrderKey(line("not an object"), person)).toBe(CTX);
    expect(contributionOrderKey({ data: {} }, person)).toBeUndefined();
  });
});

/** A task that runs until `finish` is called. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return { task: () => done, finish };
}

/** Whether `slot` resolves before everything now pending has run. */
async function startsAtOnce(d: Dispatcher, keys: string[]): Promise<boolean> {
  let started = false;
  void d.slot(new Set(keys)).then(() => (started = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return started;
}

describe("the dispatcher's order keys", () => {
  it("runs other records of a context beside a running one, but not the same record or the whole context", async () => {
    const d = new Dispatcher(8);
    const r1 = recordOrderKey("ctx", "r1");
    const running = held();
    void d.run(new Set([r1]), running.task);
    expect(await startsAtOnce(d, [recordOrderKey("ctx", "r2")])).toBe(true);
    expect(await startsAtOnce(d, [recordOrderKey("other", "r1")])).toBe(true);
    expect(await startsAtOnce(d, [r1])).toBe(false);
    expect(await startsAtOnce(d, ["ctx"])).toBe(false);
    running.finish();
    await d.idle();
    expect(await startsAtOnce(d, ["ctx"])).toBe(true);
  });

  it("holds a record of a context while a line of the whole context runs", async () => {
    const d = new Dispatcher(8);
    const running = held();
    void d.run(new Set(["ctx"]), running.task);
    expect(await startsAtOnce(d, [recordOrderKey("ctx", "r1")])).toBe(false);
    expect(await startsAtOnce(d, [recordOrderKey("other", "r1")])).toBe(true);
    running.finish();
    await d.idle();
  });
});
