import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { createPipeline } from "../../src/engine/pipeline/worker.js";
import { pipelineBatchSuite } from "../helpers/pipeline-batch-suite.js";

pipelineBatchSuite("SQLite", async () => createLocalEngine({ db: join(mkdtempSync(join(tmpdir(), "ddsctl-batch-")), "dds.db") }));

it("on SQLite every worker paces its passes as the only one (claims are bound to their lease alone)", async () => {
  const engine = createLocalEngine({ db: join(mkdtempSync(join(tmpdir(), "ddsctl-batch-")), "dds.db") });
  try {
    await createPipeline(engine.ctx.store, { workerId: "a" }).stepMany(1);
    await createPipeline(engine.ctx.store, { workerId: "b" }).stepMany(1);
    expect(await engine.pipeline.repo.liveWorkers()).toBe(1);
  } finally {
    await engine.close();
  }
});
