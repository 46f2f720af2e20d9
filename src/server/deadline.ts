import type { MiddlewareHandler } from "hono";
import { errors } from "../contract/errors.js";
import { errorResponse } from "./problem.js";
import type { ServerEnv } from "./types.js";

/**
 * The last bound on a request's time: past `ms` it is answered 503 with Retry-After, even
 * if its work (held up by a database that neither answers nor fails) goes on. That work is
 * not abandoned half-way: its transaction commits or rolls back as a whole, and a request
 * with an Idempotency-Key keeps its mark until then, so a retry waits for it (409) and then
 * gets its answer replayed, or runs it once.
 */
export function deadline(ms: number): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), ms);
    });
    try {
      const work = next();
      // The work's own failure is reported by the error handler, inside next().
      work.catch(() => undefined);
      if ((await Promise.race([work, late])) !== "late") return;
    } finally {
      clearTimeout(timer);
    }
    c.res = errorResponse(c, errors.databaseUnavailable(`the request did not finish within ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`} (the database is slow to answer); retry with the same Idempotency-Key`));
  };
}
