import { defineCommand } from "../../core/define-command.js";
import { outputArgs } from "../../core/shared-args.js";
import { withTokenStore } from "../tokens/token-store.js";

/** `ddsctl workspaces list`: the workspaces of a database, with what each holds. */
export default defineCommand({
  command: "workspaces list",
  description: "list the database's workspaces: unrevoked tokens, models and contexts in each",
  examples: ["ddsctl workspaces list", "DDS_DATABASE_URL=postgres://dds@db.internal/dds ddsctl workspaces list -o json"],
  args: { ...outputArgs },
  help: "Read on the database, like tokens (never over HTTP: a token sees only its own workspace). A workspace is made by the first token or in-process command that names it.",
  async handler(_args, ctx) {
    // Lazy: engine code loads only for the command that uses it, never at start-up.
    const { listWorkspaces } = await import("../../../engine/auth/index.js");
    const workspaces = await withTokenStore(ctx, false, (store) => listWorkspaces(store));
    const { out } = ctx;
    if (out.options.json) return out.json({ data: workspaces });
    out.table(
      workspaces,
      [
        { header: "NAME", get: (w) => w.name },
        { header: "TOKENS", get: (w) => String(w.tokens) },
        { header: "MODELS", get: (w) => String(w.models) },
        { header: "CONTEXTS", get: (w) => String(w.contexts) },
        { header: "CREATED", get: (w) => w.createdAt },
      ],
      "workspaces",
    );
  },
});
