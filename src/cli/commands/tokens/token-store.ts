import { errors } from "../../../contract/errors.js";
import type { Store } from "../../../engine/store/store.js";
import type { CommandContext } from "../../command.js";

/**
 * Opens the target's database for token management. Tokens are written to the database
 * directly, never over HTTP (SPEC.md §2), so a remote target is refused.
 */
export async function openTokenStore(ctx: CommandContext): Promise<Store> {
  const target = ctx.target();
  if (target.mode !== "local") {
    throw errors.usage(`tokens are managed on the server's database, not over HTTP; run this where the database is, with --local <db> or DDS_DB (target was ${target.baseUrl})`);
  }
  const { openDatabase } = await import("../../../engine/store/db.js");
  const store = await openDatabase(target.db);
  ctx.out.info(ctx.out.c.dim(`local ${store.location}`));
  return store;
}

/** Runs `fn` on the token store and closes it afterwards. */
export async function withTokenStore<T>(ctx: CommandContext, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const store = await openTokenStore(ctx);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
