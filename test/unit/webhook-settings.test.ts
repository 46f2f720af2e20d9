import { describe, expect, it } from "vitest";
import { describeWebhookSettings, webhookSettings } from "../../src/cli/common/webhook-settings.js";
import { pointInTime } from "../../src/cli/common/point-in-time.js";

describe("serve's webhook settings", () => {
  it("default to the schedule, time-out and disabling docs/webhooks.md states", () => {
    const s = webhookSettings({});
    expect(s).toEqual({ retryDelaysMs: [5_000, 60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000], timeoutMs: 10_000, disableAfterMs: 432_000_000 });
    expect(describeWebhookSettings(s)).toBe("webhooks: time-out 10s, retries after 5s,1m,5m,30m,2h,5h,10h,10h, disabled after 5 days of failures");
  });

  it("read the values the flags (or their DDS_WEBHOOK_* variables) gave", () => {
    const given = { webhookSchedule: "1s,2s", webhookTimeout: "3s", webhookDisableAfter: "0" };
    expect(webhookSettings(given)).toEqual({ retryDelaysMs: [1_000, 2_000], timeoutMs: 3_000, disableAfterMs: 0 });
    expect(webhookSettings({ webhookSchedule: "500ms", webhookTimeout: "15s", webhookDisableAfter: "2 days" })).toEqual({ retryDelaysMs: [500], timeoutMs: 15_000, disableAfterMs: 172_800_000 });
    expect(describeWebhookSettings(webhookSettings(given))).toBe("webhooks: time-out 3s, retries after 1s,2s, never disabled");
  });

  it("refuse what they cannot read, naming where it came from", () => {
    expect(() => webhookSettings({ webhookSchedule: "5s,soon" })).toThrow(/--webhook-schedule 5s,soon/);
    expect(() => webhookSettings({ webhookTimeout: "-1s" }, (key) => (key === "webhookTimeout" ? "DDS_WEBHOOK_TIMEOUT" : "default"))).toThrow(/DDS_WEBHOOK_TIMEOUT -1s/);
  });
});

describe("--since", () => {
  it("reads a duration ago or a time", () => {
    const now = Date.parse("2026-03-01T12:00:00Z");
    expect(pointInTime("2h", "--since", now)).toBe("2026-03-01T10:00:00.000Z");
    expect(pointInTime("3d", "--since", now)).toBe("2026-02-26T12:00:00.000Z");
    expect(pointInTime("2026-02-01T08:00:00+01:00", "--since", now)).toBe("2026-02-01T07:00:00.000Z");
    expect(() => pointInTime("yesterday", "--since", now)).toThrow(/--since yesterday/);
  });
});
