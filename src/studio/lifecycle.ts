/** How the studio command waits: until Ctrl-C or SIGTERM, then it closes at once. */
import { errors } from "../contract/errors.js";

/** Resolves with the first SIGINT or SIGTERM (the handlers are removed again). */
export function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve(signal);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** `--port`: 0 to 65535 (0 picks a free port). */
export function studioPort(value: unknown): number {
  const text = String(value);
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port <= 65535)) throw errors.usage(`--port must be an integer from 0 to 65535, got "${text}"`);
  return port;
}
