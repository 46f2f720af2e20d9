import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_DELAYS_MS, DEFAULT_SCHEDULE, DEFAULT_SCHEDULE_TEXT, DEFAULT_TIMEOUT_MS } from "../../src/engine/webhooks/index.js";
import { parseDuration } from "../../src/util/duration.js";

/** docs/webhooks.md states the schedule, the time-out and disabling as the code does. */
const DOC = readFileSync(resolve(import.meta.dirname, "../../docs/webhooks.md"), "utf8");

/** The rows of the markdown table that follows `heading`. */
function table(heading: string): string[][] {
  const start = DOC.indexOf(heading);
  expect(start, heading).toBeGreaterThan(-1);
  const lines = DOC.slice(start).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

describe("docs/webhooks.md", () => {
  it("lists the default schedule: the first attempt at once, then each wait of the code's schedule", () => {
    const rows = table("## The schedule");
    expect(rows.map((r) => r[0])).toEqual(Array.from({ length: DEFAULT_RETRY_DELAYS_MS.length + 1 }, (_, i) => String(i + 1)));
    expect(rows[0][1]).toBe("at once");
    expect(rows.slice(1).map((r) => parseDuration(r[1].replace(/ /g, "")))).toEqual([...DEFAULT_RETRY_DELAYS_MS]);
    expect(DOC).toContain(`by up to ${DEFAULT_SCHEDULE.jitter * 100} % either way`);
  });

  it("gives the settings' defaults as the code has them", () => {
    const settings = Object.fromEntries(table("## Settings").map((r) => [r[0].split(" ")[0].replace(/`/g, ""), r[2].replace(/`/g, "")]));
    expect(settings["--webhook-schedule"]).toBe(DEFAULT_SCHEDULE_TEXT);
    expect(parseDuration(settings["--webhook-timeout"])).toBe(DEFAULT_TIMEOUT_MS);
    expect(parseDuration(settings["--webhook-disable-after"])).toBe(DEFAULT_DISABLE_AFTER_MS);
    expect(DOC).toContain(`Answer 2xx within the time-out** (${DEFAULT_TIMEOUT_MS / 1000} s by default)`);
    expect(DOC).toContain(`failed for ${DEFAULT_DISABLE_AFTER_MS / 86_400_000} days`);
  });
});
