import { describe, expect, it } from "vitest";
import type { DdsService } from "../../../src/contract/service.js";
import { SHOWN_CONTEXTS, contextList } from "../../../src/cli/common/context-labels.js";

const ids = Array.from({ length: 25 }, (_, i) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`);
const asked: string[] = [];
const service = {
  async getContext(id: string) {
    asked.push(id);
    const i = ids.indexOf(id);
    return { contextId: id, name: i === 3 ? null : `case-${i}` };
  },
} as unknown as DdsService;

describe("contexts in a result, by name", () => {
  it("uses the names at hand, reads the others, shows the first ten and counts the rest", async () => {
    asked.length = 0;
    const text = await contextList(service, ids, new Map([[ids[0], "okafor-purchase"]]));
    expect(text).toBe(`okafor-purchase, case-1, case-2, ${ids[3]}, case-4, case-5, case-6, case-7, case-8, case-9, … and 15 more`);
    expect(asked).toHaveLength(SHOWN_CONTEXTS - 1);
    expect(await contextList(service, ids.slice(0, 2))).toBe("case-0, case-1");
  });
});
