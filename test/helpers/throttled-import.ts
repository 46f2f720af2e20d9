import { createHttpClient } from "../../src/client/index.js";
import { ddsctl, sandbox, type RunResult } from "./cli.js";
import { setupMortgageModels } from "../contract/mortgage-models.js";
import { contribution, writeLines } from "../cli/import/support.js";

/** The limit of the throttled token: burst 40 units, 20 a second. */
export const THROTTLED_RATE = "40/2s";
/** Lines of the throttled import. */
export const THROTTLED_LINES = 600;

/** What a remote import under a rate limit did, and what the server then holds. */
export interface ThrottledImport {
  run: RunResult;
  /** Contributions stored in the workspace afterwards, read through an unlimited token. */
  stored: number;
}

/**
 * `ddsctl import contributions --remote` of `lines` lines (over 10 contexts, created first)
 * against `origin` as `token`, whose limit is far below the import's speed; `admin` is an
 * unlimited token of the same workspace that sets up the models and contexts and counts
 * what arrived.
 *
 * The limit's callers ({@link THROTTLED_RATE} with {@link THROTTLED_LINES}) leave the import
 * about 9 s of waiting in all (bulks of 35 units, 6 of them, plus a lookup per context,
 * against a burst of 40 refilled at 20 a second), so it is throttled unless the machine
 * sends 600 lines slower than that, whatever its load: the test asserts what was said and
 * stored, never how long it took.
 */
export async function throttledImport(origin: string, token: string, admin: string, lines: number): Promise<ThrottledImport> {
  const baseUrl = `${origin}/v1`;
  const client = createHttpClient({ baseUrl, token: admin });
  const box = sandbox();
  try {
    await setupMortgageModels(client);
    for (let i = 0; i < 10; i++) await client.createContext({ name: `case-${i}` });
    const file = writeLines(
      box,
      "in.ndjson",
      Array.from({ length: lines }, (_, i) => contribution(`case-${i % 10}`, "Applicant", `src-${i}`, { applicantId: `a${i}`, name: `N${i}`, creditScore: 600 + (i % 200) })),
    );
    const run = await ddsctl(box, ["--remote", baseUrl, "--token", token, "import", "contributions", file, "--create-contexts", "--no-wait", "--json"]);
    let stored = 0;
    for (let cursor: string | null | undefined = undefined; ; ) {
      const page = await client.listContributions({ limit: 500, ...(cursor ? { cursor } : {}) });
      stored += page.data.length;
      if (!page.hasNextPage) break;
      cursor = page.nextCursor;
    }
    return { run, stored };
  } finally {
    await client.close();
    box.cleanup();
  }
}
