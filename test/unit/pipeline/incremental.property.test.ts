import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalEngine } from "../../../src/engine/local-engine.js";
import { incrementalPassSuite } from "../../helpers/incremental-suite.js";

incrementalPassSuite("SQLite", async () => createLocalEngine({ db: join(mkdtempSync(join(tmpdir(), "ddsctl-incremental-")), "dds.db") }), 60);
