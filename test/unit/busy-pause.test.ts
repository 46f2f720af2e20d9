import { describe, expect, it } from "vitest";
import { pauseAfterBusyPass } from "../../src/engine/pipeline/pipeline-runner.js";

describe("passes under load, paced for the fleet", () => {
  it("gives passes a tenth of the time for the whole fleet: each of n workers an nth of it", () => {
    // One worker: a pass of 10 ms, then 90 ms for the requests.
    expect(pauseAfterBusyPass(10, 1)).toBeCloseTo(90);
    // Two workers on the database: each a twentieth, so the two pass as often as one did.
    expect(pauseAfterBusyPass(10, 2)).toBeCloseTo(190);
    expect(pauseAfterBusyPass(10, 4)).toBeCloseTo(390);
    // No count (or a bad one) is one worker; a pass of no time still yields.
    expect(pauseAfterBusyPass(10, 0)).toBeCloseTo(90);
    expect(pauseAfterBusyPass(0, 1)).toBe(1);
  });
});
