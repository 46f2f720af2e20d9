import { describe, expect, it } from "vitest";
import { clock, etaSeconds } from "../../../src/cli/commands/import/import-progress.js";

describe("the import progress bar's ETA", () => {
  it("is the bytes left at the average rate so far, as the lines/s beside it", () => {
    // 25 MB of 100 MB in 30 s: 75 MB more at the same rate is 90 s.
    expect(etaSeconds(100e6, 25e6, 30)).toBe(90);
    expect(etaSeconds(100e6, 0, 1)).toBeUndefined();
    expect(etaSeconds(100e6, 100e6, 42)).toBe(0);
  });

  it("reads as m:ss, or h:mm:ss past an hour", () => {
    expect(clock(90)).toBe("1:30");
    expect(clock(5)).toBe("0:05");
    expect(clock(3725)).toBe("1:02:05");
  });
});
