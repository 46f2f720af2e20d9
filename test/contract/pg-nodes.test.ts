import { afterAll } from "vitest";
import type { DdsService } from "../../src/contract/service.js";
import { alternating, startNode, tokenFor, type InProcessNode } from "../helpers/pg-nodes.js";
import { startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";
import { mortgageSuite } from "./mortgage-suite.js";
import { webhookSuite } from "./webhook-suite.js";

let cluster: PgCluster | undefined;
const nodes: InProcessNode[] = [];
let client: DdsService | undefined;

afterAll(async () => {
  await client?.close();
  for (const n of nodes) await n.close();
  await cluster?.stop();
});

// The same suite again, over HTTP, with every request going to the next of two serve nodes
// on one PostgreSQL: a write lands on one node and the read after it on the other, each
// node with its own pool, caches, worker and dispatcher. As in http.test.ts, the workers
// wait 250 ms after the last write before a pass, so a read right after a write sees
// `stale` as it does locally.
// Webhook secrets are sealed with DDS_SECRET_KEY on PostgreSQL: startNode gives every node the same one.
const open = async () => {
  if (client) return client;
  cluster = await startPostgres();
  const url = await cluster.createDatabase();
  for (let i = 0; i < 2; i++) nodes.push(await startNode(url, { worker: { settleMs: 250, idleMs: 20 } }));
  client = alternating(
    nodes.map((n) => n.origin),
    await tokenFor(url, "admin"),
  );
  return client;
};
mortgageSuite("HTTP client alternating between two serve nodes on PostgreSQL", open);
// Both nodes' dispatchers run: deliveries are tried while the suite looks at them.
webhookSuite("HTTP client alternating between two serve nodes on PostgreSQL", open);
