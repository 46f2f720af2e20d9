import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { mortgageSuite } from "./mortgage-suite.js";

mortgageSuite("local engine", async () => createLocalEngine({ db: join(mkdtempSync(join(tmpdir(), "ddsctl-contract-")), "dds.db") }));
