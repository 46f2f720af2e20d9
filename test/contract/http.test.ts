import { afterAll } from "vitest";
import { createHttpClient } from "../../src/client/index.js";
import type { DdsService } from "../../src/contract/service.js";
import { startServer, type Harness } from "../server/harness.js";
import { mortgageSuite } from "./mortgage-suite.js";
import { webhookSuite } from "./webhook-suite.js";

let harness: Harness | undefined;
let client: DdsService | undefined;

afterAll(async () => {
  await client?.close();
  await harness?.close();
});

// The same suite as local.test.ts, through the HTTP client against a real server. The
// worker waits 250 ms after the last write before a pass (settleMs), so a read right after
// a write sees `stale` as it does locally, where nothing runs until runPipeline.
const open = async () => {
  harness ??= await startServer({ worker: { settleMs: 250, idleMs: 20 } });
  client ??= createHttpClient({ baseUrl: `${harness.origin}/v1`, token: await harness.token("admin") });
  return client;
};
mortgageSuite("HTTP client against ddsctl serve", open);
// Its dispatcher runs: deliveries are tried while the suite looks at them.
webhookSuite("HTTP client against ddsctl serve", open);
