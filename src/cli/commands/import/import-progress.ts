import type { Output } from "../../output/output.js";
import type { ImportCounts, ImportProgress } from "./import-run.js";
import { isThrottled, type Throttle } from "../../common/throttle.js";

/** `1:05` or `1:02:05`: what is left, for the bar. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const hms = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const [h, m, sec] = hms.map((n) => String(n).padStart(2, "0"));
  return hms[0] > 0 ? `${hms[0]}:${m}:${sec}` : `${Number(m)}:${sec}`;
}

/**
 * Seconds left to read `total` bytes at the average rate so far (`bytes` in `seconds`):
 * the same average as the lines/s beside it.
 */
export function etaSeconds(total: number, bytes: number, seconds: number): number | undefined {
  return bytes > 0 ? ((total - bytes) * seconds) / bytes : undefined;
}

/**
 * A progress bar for a TTY: bytes read of the file (so the ETA is honest before the
 * line count is known), lines, lines/s and failures. The ETA is the bytes left at the
 * same average rate the lines/s figure shows (cli-progress's own ETA extrapolates its last
 * few updates, and so disagreed with the rate beside it). Nothing at all when stderr is not a
 * TTY or under --quiet. While the server's rate limit holds requests back the bar says
 * `throttled`. Returns a factory, as the file size is known only once the import has
 * opened it.
 */
export async function progressBar(out: Output, throttle?: Throttle): Promise<((total: number | undefined) => ImportProgress | undefined) | undefined> {
  const stream = out.progressStream();
  if (!stream) return undefined;
  // Lazy: the progress bar's package loads only when stderr is a terminal.
  const { default: cliProgress } = await import("cli-progress");
  return (total) => {
    const started = Date.now();
    const format =
      total !== undefined
        ? " {bar} {percentage}% | {lines} lines | {rate} lines/s | {failed} failed | ETA {left}{throttled}"
        : " {lines} lines | {rate} lines/s | {failed} failed{throttled}";
    const bar = new cliProgress.SingleBar({ stream, format, fps: 8, etaBuffer: 40 }, cliProgress.Presets.shades_classic);
    bar.start(total ?? 1, 0, { lines: 0, rate: 0, failed: 0, left: "-", throttled: "" });
    return {
      update(bytes: number, counts: ImportCounts, sent: number) {
        const seconds = Math.max((Date.now() - started) / 1000, 0.001);
        const eta = total !== undefined ? etaSeconds(total, bytes, seconds) : undefined;
        const left = eta !== undefined ? clock(eta) : "-";
        const throttled = isThrottled(throttle) ? " | throttled by the server's rate limit" : "";
        const payload = { lines: counts.lines.toLocaleString("en-US"), rate: Math.round(sent / seconds).toLocaleString("en-US"), failed: counts.failed, left, throttled };
        bar.update(total !== undefined ? bytes : 0, payload);
      },
      stop() {
        bar.stop();
      },
    };
  };
}
