import { errors } from "../../contract/errors.js";
import { formatDuration, parseDuration, parseDurationList } from "../../util/duration.js";
import type { StringArg } from "../core/args.js";
import { DEFAULT_DISABLE_AFTER_MS, DEFAULT_RETRY_DELAYS_MS, DEFAULT_SCHEDULE_TEXT, DEFAULT_TIMEOUT_MS } from "../../engine/webhooks/webhook-schedule.js";

const short = (ms: number) => formatDuration(ms, "short");

/** `serve`'s webhook flags, declared once (docs/webhooks.md, "Settings"), each with its variable. */
export const webhookArgs = {
  webhookSchedule: {
    type: "string",
    placeholder: "waits",
    env: "DDS_WEBHOOK_SCHEDULE",
    description: `waits between delivery attempts, comma-separated (default ${DEFAULT_SCHEDULE_TEXT})`,
  } satisfies StringArg,
  webhookTimeout: { type: "string", placeholder: "duration", env: "DDS_WEBHOOK_TIMEOUT", description: `how long a receiver has to answer an attempt (default ${short(DEFAULT_TIMEOUT_MS)})` } satisfies StringArg,
  webhookDisableAfter: {
    type: "string",
    placeholder: "duration",
    env: "DDS_WEBHOOK_DISABLE_AFTER",
    description: `disable a webhook whose every attempt failed for this long, 0 for never (default ${short(DEFAULT_DISABLE_AFTER_MS)})`,
  } satisfies StringArg,
};

/** The dispatcher settings: what the flags and variables chose, else the defaults. */
export interface WebhookSettings {
  retryDelaysMs: number[];
  timeoutMs: number;
  disableAfterMs: number;
}

/**
 * Reads the webhook settings from the flags' values (a flag, else its `DDS_WEBHOOK_*`
 * variable: the parser picks), else the defaults; a bad value is a usage error naming
 * `sourceOf` its key: the flag or the variable.
 */
export function webhookSettings(flags: { webhookSchedule?: string; webhookTimeout?: string; webhookDisableAfter?: string }, sourceOf: (key: string) => string = () => "default"): WebhookSettings {
  const pick = (value: string | undefined, key: string, flag: string) => (value === undefined ? undefined : { text: value, source: sourceOf(key) === "default" ? flag : sourceOf(key) });
  const settings: WebhookSettings = { retryDelaysMs: [...DEFAULT_RETRY_DELAYS_MS], timeoutMs: DEFAULT_TIMEOUT_MS, disableAfterMs: DEFAULT_DISABLE_AFTER_MS };
  const schedule = pick(flags.webhookSchedule, "webhookSchedule", "--webhook-schedule");
  if (schedule) {
    const delays = parseDurationList(schedule.text);
    if (!delays) throw errors.usage(`${schedule.source} ${schedule.text}: use comma-separated durations, such as 5s,1m,5m,30m,2h,5h,10h,10h`);
    settings.retryDelaysMs = delays;
  }
  const timeout = pick(flags.webhookTimeout, "webhookTimeout", "--webhook-timeout");
  if (timeout) {
    const value = parseDuration(timeout.text);
    if (value === undefined || value <= 0) throw errors.usage(`${timeout.source} ${timeout.text}: use a duration above zero, such as 10s or 500ms`);
    settings.timeoutMs = value;
  }
  const disable = pick(flags.webhookDisableAfter, "webhookDisableAfter", "--webhook-disable-after");
  if (disable) {
    const value = parseDuration(disable.text);
    if (value === undefined) throw errors.usage(`${disable.source} ${disable.text}: use a duration such as 5d or 12h, or 0 to never disable`);
    settings.disableAfterMs = value;
  }
  return settings;
}

/** One line for the serve banner: what a receiver can expect. */
export function describeWebhookSettings(s: WebhookSettings): string {
  const waits = s.retryDelaysMs.map(short).join(",");
  const disable = s.disableAfterMs > 0 ? `disabled after ${formatDuration(s.disableAfterMs)} of failures` : "never disabled";
  return `webhooks: time-out ${short(s.timeoutMs)}, retries after ${waits}, ${disable}`;
}
