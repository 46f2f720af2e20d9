import { errors, ExitCode } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";
import { migrationProgress } from "../../common/migration-progress.js";

/**
 * `ddsctl migrate`: brings the target database's schema up to this ddsctl's, for operators
 * who apply schema changes on their own schedule (`serve --no-migrate` then refuses an
 * older schema instead of migrating it). Every other command migrates on open.
 */
export default defineCommand({
  command: "migrate",
  description: "apply pending schema migrations to the target database (SQLite or PostgreSQL)",
  examples: [
    "ddsctl migrate --database postgres://dds@db.internal/dds",
    "DDS_DATABASE_URL=postgres://dds@db.internal/dds ddsctl migrate --check   # exit 1 when migrations are pending, 8 when the schema is newer",
    "ddsctl --local ./.dds/dds.db migrate --json",
  ],
  args: {
    check: { type: "boolean", description: "only report the schema version; exit 1 when migrations are pending, 8 when the database is newer than this ddsctl" },
    ...reportArgs,
  },
  help: "Exit codes: 0 up to date (or migrated), 1 migrations pending (--check), 6 the database cannot be reached now, 7 it refused the login (password, role, database name), 8 its schema is newer than this ddsctl (upgrade ddsctl).",
  writes: true,
  async handler(args, ctx) {
    const target = ctx.target();
    if (target.mode !== "local") {
      throw errors.usage(`migrate runs on a database, not over HTTP; pick it with --database <url> or DDS_DATABASE_URL (target was ${target.baseUrl})`);
    }
    // Lazy: engine code (the stores, their drivers) loads only for the command that uses it, never at start-up.
    const { migrateDatabase } = await import("../../../engine/store/db.js");
    const state = await migrateDatabase(target.db, { check: args.check, onMigrationProgress: migrationProgress(ctx.out), env: ctx.io.env });
    const { out } = ctx;
    const pending = Math.max(0, state.latest - state.version);
    if (out.options.json) out.json({ ...state, pending });
    else if (state.version > state.latest) out.line(`${state.location}: schema version ${state.version}, newer than this ddsctl's ${state.latest}; upgrade ddsctl`);
    else if (pending > 0) out.line(`${state.location}: schema version ${state.version}, ${pending} migration(s) pending`);
    else if (state.applied > 0) out.line(`${state.location}: applied ${state.applied} migration(s); schema version ${state.version}`);
    else out.line(`${state.location}: schema version ${state.version}, up to date`);
    if (state.version > state.latest) ctx.setExitCode(ExitCode.schemaTooNew);
    else if (pending > 0) ctx.setExitCode(ExitCode.failure);
  },
});
