import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { pipelineBatchSuite } from "../helpers/pipeline-batch-suite.js";

pipelineBatchSuite("SQLite", async () => createLocalEngine({ db: join(mkdtempSync(join(tmpdir(), "ddsctl-batch-")), "dds.db") }));
