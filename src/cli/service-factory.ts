import { errors } from "../contract/errors.js";
import type { DdsService } from "../contract/service.js";
import type { RetryNotice } from "../client/index.js";
import type { OnMigrationProgress } from "../engine/store/migration-progress.js";
import type { Target } from "./target.js";

/** What the CLI hears from the service it opened. */
export interface OpenServiceOptions {
  /** Remote mode: told before each retry (the CLI says on stderr what it waits for). */
  onRetry?: (notice: RetryNotice) => void;
  /** Local mode: told how an upgrade of an earlier release's database advances. */
  onMigrationProgress?: OnMigrationProgress;
  /** Local mode: the environment the application reads (the CLI's, as injected). */
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Opens the service for a target. This is the one place that knows whether the CLI runs
 * locally or remotely; the engine and the HTTP client are imported lazily so `--help` and
 * `--version` stay fast.
 */
export async function openService(target: Target, options: OpenServiceOptions): Promise<DdsService> {
  if (target.mode === "local") {
    // Lazy: the engine requires the SQLite addon on load; --help, --remote and local-free commands never pay for it.
    const { openLocalEngine } = await import("../engine/local-engine.js");
    // The CLI is the database's only user in this process: a drain commits its passes together.
    return openLocalEngine({ db: target.db, workspace: target.workspace, env: options.env, pipeline: { groupPasses: true }, onMigrationProgress: options.onMigrationProgress });
  }
  if (!target.token) {
    throw errors.usage(
      `remote mode (${target.baseUrl}) needs an API token: pass --token <token> or set DDS_API_TOKEN (the operator creates one with ddsctl tokens create)`,
    );
  }
  // Lazy: the HTTP client requires undici's side bundle; only remote targets load it.
  const { createHttpClient } = await import("../client/index.js");
  return createHttpClient({ baseUrl: target.baseUrl, token: target.token, onRetry: options.onRetry });
}

/** The stderr line before a retry: what failed and how long the client waits. */
export function retryLine(n: RetryNotice): string {
  const what = n.status !== undefined ? `the server answered ${n.status}` : `the connection failed (${n.code ?? "error"})`;
  return `${what} to ${n.method} ${n.path}; retrying in ${(n.waitMs / 1000).toFixed(1)} s (retry ${n.attempt})`;
}
