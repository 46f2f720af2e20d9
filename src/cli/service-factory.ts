import { errors } from "../contract/errors.js";
import type { DdsService } from "../contract/service.js";
import type { OnMigrationProgress } from "../engine/store/migration-progress.js";
import type { Target } from "./target.js";

/**
 * Opens the service for a target. This is the one place that knows whether the CLI runs
 * locally or remotely; the engine and the HTTP client are imported lazily so `--help` and
 * `--version` stay fast.
 */
export async function openService(target: Target, onMigrationProgress?: OnMigrationProgress): Promise<DdsService> {
  if (target.mode === "local") {
    const { openLocalEngine } = await import("../engine/local-engine.js");
    // The CLI is the database's only user in this process: a drain commits its passes together.
    return openLocalEngine({ db: target.db, workspace: target.workspace, pipeline: { groupPasses: true }, onMigrationProgress });
  }
  if (!target.token) {
    throw errors.usage(
      `remote mode (${target.baseUrl}) needs an API token: pass --token <token> or set DDS_API_TOKEN (the operator creates one with ddsctl tokens create)`,
    );
  }
  const { createHttpClient } = await import("../client/index.js");
  return createHttpClient({ baseUrl: target.baseUrl, token: target.token });
}
