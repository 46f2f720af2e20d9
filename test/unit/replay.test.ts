import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { setupMortgageModels } from "../contract/mortgage-models.js";

describe("exactly-once bulk calls (idempotencyKey)", () => {
  it("a repeated key returns the first response and writes nothing new, per workspace", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "ddsctl-replay-")), "dds.db");
    const engine = createLocalEngine({ db });
    const models = await setupMortgageModels(engine);
    const { contextId } = await engine.createContext({});
    const item = (n: number) => ({ contextId, modelId: models.Employment, sourceId: `s${n}`, sourceType: "document", data: { employmentId: `e${n}` } });
    const bad = { ...item(4), data: { employmentId: "e4", monthlyIncome: "lots" } };
    const first = await engine.bulkCreateContributions({ items: [item(1), item(2), bad] }, { idempotencyKey: "batch-1" });
    expect(first.items.map((i) => i.status)).toEqual([201, 201, 422]);
    // The first answer's contributions are superseded since; a replay still says what it said.
    await engine.bulkCreateContributions({ items: [{ ...item(1), data: { employmentId: "e1", monthlyIncome: 5000 } }] });
    const again = await engine.bulkCreateContributions({ items: [item(3)] }, { idempotencyKey: "batch-1" });
    expect(again).toStrictEqual(first);
    const count = async () => (await engine.listContributions({ filters: [{ field: "contextId", op: "eq", value: contextId }] })).data.length;
    expect(await count()).toBe(3);
    await engine.bulkCreateContributions({ items: [item(3)] }, { idempotencyKey: "batch-2" });
    expect(await count()).toBe(4);
    // another workspace does not see the key
    const other = createLocalEngine({ db: engine.ctx.store, workspace: "other" });
    const otherModels = await setupMortgageModels(other);
    const { contextId: c2 } = await other.createContext({});
    const res = await other.bulkCreateContributions({ items: [{ ...item(9), contextId: c2, modelId: otherModels.Employment }] }, { idempotencyKey: "batch-1" });
    expect(res.summary.succeeded).toBe(1);
  });
});
