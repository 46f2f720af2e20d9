import type { Output } from "../../output.js";
import type { ImportCounts, ImportProgress } from "./import-run.js";

/**
 * A progress bar for a TTY: bytes read of the file (so the ETA is honest before the
 * line count is known), lines, lines/s and failures. Nothing at all when stderr is not a
 * TTY or under --quiet. Returns a factory, as the file size is known only once the
 * import has opened it.
 */
export async function progressBar(out: Output): Promise<((total: number | undefined) => ImportProgress | undefined) | undefined> {
  const stream = out.progressStream();
  if (!stream) return undefined;
  const { default: cliProgress } = await import("cli-progress");
  return (total) => {
    const started = Date.now();
    const format =
      total !== undefined
        ? " {bar} {percentage}% | {lines} lines | {rate} lines/s | {failed} failed | ETA {eta_formatted}"
        : " {lines} lines | {rate} lines/s | {failed} failed";
    const bar = new cliProgress.SingleBar({ stream, format, fps: 8, etaBuffer: 40 }, cliProgress.Presets.shades_classic);
    bar.start(total ?? 1, 0, { lines: 0, rate: 0, failed: 0 });
    return {
      update(bytes: number, counts: ImportCounts) {
        const seconds = Math.max((Date.now() - started) / 1000, 0.001);
        const payload = { lines: counts.lines.toLocaleString("en-US"), rate: Math.round(counts.lines / seconds).toLocaleString("en-US"), failed: counts.failed };
        bar.update(total !== undefined ? bytes : 0, payload);
      },
      stop() {
        bar.stop();
      },
    };
  };
}
