import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalEngine } from "../../src/engine/local-engine.js";
import { mortgageSuite } from "./mortgage-suite.js";
import { webhookSuite } from "./webhook-suite.js";

const open = async () => createLocalEngine({ db: join(mkdtempSync(join(tmpdir(), "ddsctl-contract-")), "dds.db") });
mortgageSuite("local engine", open);
webhookSuite("local engine", open);
