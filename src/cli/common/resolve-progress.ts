import type { PipelineProgress } from "../../contract/service.js";
import type { Output } from "../output/output.js";

/** Least time between two redraws. */
const REDRAW_MS = 100;

/**
 * One line on a terminal while the pipeline resolves what a command changed
 * (`resolving 412/1000 context(s)`), drawn at once and then as contexts resolve, so the
 * wait after an import's bar reaches 100 % is not silent. Nothing without a terminal or
 * under --quiet. `done` clears the line before the command's own message.
 */
export function resolveProgress(out: Output, total: number | undefined): { onProgress?: (p: PipelineProgress) => void; done(): void } {
  if (!out.progressStream()) return { done: () => undefined };
  let drawnAt = -Infinity;
  const draw = (p: PipelineProgress) => {
    const of = p.total ?? total;
    out.progress(`\r\x1b[2K resolving ${of !== undefined ? `${p.resolved}/${of}` : p.resolved} context(s)…`);
    drawnAt = Date.now();
  };
  draw({ resolved: 0 });
  return {
    onProgress(p) {
      // The last one is always drawn: the line ends on the full count.
      if (Date.now() - drawnAt >= REDRAW_MS || (p.total !== undefined && p.resolved >= p.total)) draw(p);
    },
    done: () => out.progress("\r\x1b[2K"),
  };
}
