import { existsSync } from "node:fs";
import { errors } from "../../../contract/errors.js";
import { isPostgresUrl } from "../../../engine/store/location.js";
import type { App } from "../../../engine/app.js";
import type { Store } from "../../../engine/store/store.js";
import type { CommandContext } from "../../core/define-command.js";
import { missingDatabase } from "../../core/context.js";
import { describeTarget } from "../../target.js";

/**
 * Opens the target's database for token management. Tokens are written to the database
 * directly, never over HTTP (docs/security.md), so a remote target is refused. Only
 * `tokens create` may create the database.
 */
export async function openTokenStore(ctx: CommandContext, create: boolean): Promise<{ app: App; workspace: string }> {
  const target = ctx.target();
  if (target.mode !== "local") {
    throw errors.usage(`tokens are managed on the server's database, not over HTTP; run this where the database is, with --database <url>, --local <db>, DDS_DATABASE_URL or DDS_DB (target was ${target.baseUrl})`);
  }
  if (!create && !isPostgresUrl(target.db) && !existsSync(target.db)) throw missingDatabase(target.db);
  // Lazy: engine code (the stores, their drivers) loads only for the command that uses it, never at start-up.
  const { openApp } = await import("../../../engine/app.js");
  const app = await openApp({ location: target.db, env: ctx.io.env });
  // Tokens span the database's workspaces: `tokens create` names the one it issues for.
  ctx.out.info(ctx.out.c.dim(describeTarget(target, { workspace: false })));
  return { app, workspace: target.workspace };
}

/** Runs `fn` on the token store (with the target's workspace) and closes it afterwards. */
export async function withTokenStore<T>(ctx: CommandContext, create: boolean, fn: (store: Store, workspace: string) => T | Promise<T>): Promise<T> {
  const { app, workspace } = await openTokenStore(ctx, create);
  try {
    return await fn(app.store, workspace);
  } finally {
    await app.close();
  }
}
