import type { CommandDefinition } from "./core/define-command.js";

/** A command by its words, and how to load its definition. */
export interface CommandEntry {
  /** The command's words, as its definition spells them (`contexts list`). */
  command: string;
  load: () => Promise<{ default: CommandDefinition }>;
}

/**
 * Every command, in the order --help lists them. A new command is one file and one line
 * here. Each is loaded when the command line needs it (dynamic import, for start-up: a
 * command loads its own code only, and `--help` the top-level commands' only), so the
 * command's words are written here as well as in its file; test/cli/help.test.ts holds the
 * two equal.
 */
export const COMMAND_INDEX: CommandEntry[] = [
  { command: "models create", load: () => import("./commands/models/create.js") },
  { command: "models list", load: () => import("./commands/models/list.js") },
  { command: "models get", load: () => import("./commands/models/get.js") },
  { command: "models update", load: () => import("./commands/models/update.js") },
  { command: "models status", load: () => import("./commands/models/status.js") },
  { command: "models delete", load: () => import("./commands/models/delete.js") },
  { command: "fields list", load: () => import("./commands/fields/list.js") },
  { command: "fields get", load: () => import("./commands/fields/get.js") },
  { command: "fields add", load: () => import("./commands/fields/add.js") },
  { command: "fields update", load: () => import("./commands/fields/update.js") },
  { command: "fields delete", load: () => import("./commands/fields/delete.js") },
  { command: "contexts create", load: () => import("./commands/contexts/create.js") },
  { command: "contexts list", load: () => import("./commands/contexts/list.js") },
  { command: "contexts get", load: () => import("./commands/contexts/get.js") },
  { command: "contexts update", load: () => import("./commands/contexts/update.js") },
  { command: "contexts status", load: () => import("./commands/contexts/status.js") },
  { command: "contexts delete", load: () => import("./commands/contexts/delete.js") },
  { command: "contributions add", load: () => import("./commands/contributions/add.js") },
  { command: "contributions list", load: () => import("./commands/contributions/list.js") },
  { command: "contributions get", load: () => import("./commands/contributions/get.js") },
  { command: "records list", load: () => import("./commands/records/list.js") },
  { command: "records get", load: () => import("./commands/records/get.js") },
  { command: "records explain", load: () => import("./commands/records/explain.js") },
  { command: "records update", load: () => import("./commands/records/update.js") },
  { command: "records delete", load: () => import("./commands/records/delete.js") },
  { command: "relationships list", load: () => import("./commands/relationships/list.js") },
  { command: "relationships remove", load: () => import("./commands/relationships/remove.js") },
  { command: "rules create", load: () => import("./commands/rules/create.js") },
  { command: "rules list", load: () => import("./commands/rules/list.js") },
  { command: "rules get", load: () => import("./commands/rules/get.js") },
  { command: "rules update", load: () => import("./commands/rules/update.js") },
  { command: "rules status", load: () => import("./commands/rules/status.js") },
  { command: "rules delete", load: () => import("./commands/rules/delete.js") },
  { command: "evaluations list", load: () => import("./commands/evaluations/list.js") },
  { command: "trace", load: () => import("./commands/trace/trace.js") },
  { command: "pipeline run", load: () => import("./commands/pipeline/run.js") },
  { command: "pipeline status", load: () => import("./commands/pipeline/status.js") },
  { command: "webhooks create", load: () => import("./commands/webhooks/create.js") },
  { command: "webhooks list", load: () => import("./commands/webhooks/list.js") },
  { command: "webhooks get", load: () => import("./commands/webhooks/get.js") },
  { command: "webhooks delete", load: () => import("./commands/webhooks/delete.js") },
  { command: "webhooks enable", load: () => import("./commands/webhooks/enable.js") },
  { command: "webhooks disable", load: () => import("./commands/webhooks/disable.js") },
  { command: "webhooks deliveries", load: () => import("./commands/webhooks/deliveries.js") },
  { command: "webhooks redeliver", load: () => import("./commands/webhooks/redeliver.js") },
  { command: "webhooks recover", load: () => import("./commands/webhooks/recover.js") },
  { command: "serve", load: () => import("./commands/serve/serve.js") },
  { command: "migrate", load: () => import("./commands/migrate/migrate.js") },
  { command: "studio", load: () => import("./commands/studio/studio.js") },
  { command: "tokens create", load: () => import("./commands/tokens/create.js") },
  { command: "tokens list", load: () => import("./commands/tokens/list.js") },
  { command: "tokens revoke", load: () => import("./commands/tokens/revoke.js") },
  { command: "tokens rate", load: () => import("./commands/tokens/rate.js") },
  { command: "workspaces rate", load: () => import("./commands/workspaces/rate.js") },
  { command: "workspaces list", load: () => import("./commands/workspaces/list.js") },
  { command: "secrets rotate", load: () => import("./commands/secrets/rotate.js") },
  { command: "rules eval", load: () => import("./commands/rules/eval.js") },
  { command: "rules test", load: () => import("./commands/rules/test.js") },
  { command: "rules deps", load: () => import("./commands/rules/deps.js") },
  // After `trace`: it hangs below that command.
  { command: "trace diff", load: () => import("./commands/trace/diff.js") },
  { command: "apply", load: () => import("./commands/apply/apply.js") },
  { command: "seed", load: () => import("./commands/seed/seed.js") },
  { command: "wait", load: () => import("./commands/wait/wait.js") },
  { command: "demo", load: () => import("./commands/demo/demo.js") },
  { command: "init", load: () => import("./commands/init/init.js") },
  { command: "login", load: () => import("./commands/login/login.js") },
  { command: "profiles list", load: () => import("./commands/profiles/list.js") },
  { command: "profiles use", load: () => import("./commands/profiles/use.js") },
  { command: "profiles remove", load: () => import("./commands/profiles/remove.js") },
  { command: "import", load: () => import("./commands/import/import.js") },
  { command: "export", load: () => import("./commands/export/export.js") },
  { command: "completion", load: () => import("./commands/completion/completion.js") },
  { command: "version", load: () => import("./commands/version/version.js") },
  { command: "__complete", load: () => import("./commands/completion/complete.js") },
];

/** The definitions of `entries` (every command by default), in their order. */
export async function loadCommands(entries: readonly CommandEntry[] = COMMAND_INDEX): Promise<CommandDefinition[]> {
  return Promise.all(entries.map(async (e) => (await e.load()).default));
}
