import { errors } from "../contract/errors.js";
import { isPostgresUrl, redactUrl } from "../engine/store/location.js";
import { readConfig } from "./config.js";
import type { Env } from "./core/io.js";

/**
 * Where commands run: in-process on a database (`db`: a SQLite path or a `postgres://`
 * URL), or a remote service.
 */
export type Target =
  | { mode: "local"; db: string; workspace: string; source: string }
  | { mode: "remote"; baseUrl: string; token?: string; source: string };

/** The global flags that pick a target. */
export interface TargetFlags {
  local?: string | boolean;
  database?: string;
  remote?: string;
  token?: string;
  profile?: string;
}

/** Default local database, relative to the working directory. */
export const DEFAULT_DB = ".dds/dds.db";

/**
 * Resolves the target with the documented precedence (docs/cli.md, "Targets"): flags
 * (`--database`, `--local`, `--remote`) > environment (DDS_DATABASE_URL, DDS_DB,
 * DDS_BASE_URL, DDS_API_TOKEN, DDS_PROFILE) > the config's current profile > the local
 * `./.dds/dds.db`. Each source is one step below, in that order.
 */
export function resolveTarget(flags: TargetFlags, env: Env): Target {
  const given = [flags.database !== undefined && "--database", flags.local !== undefined && "--local", flags.remote !== undefined && "--remote"].filter(Boolean);
  if (given.length > 1) throw errors.usage(`${given.join(" and ")} cannot be used together`);
  const token = flags.token ?? env.DDS_API_TOKEN;
  if (flags.database !== undefined) {
    if (flags.database.trim() === "") throw errors.usage("--database needs a SQLite path or a postgres:// URL");
    return { mode: "local", db: flags.database, workspace: "default", source: "--database" };
  }
  if (flags.local !== undefined) {
    const db = typeof flags.local === "string" ? flags.local : (env.DDS_DB ?? DEFAULT_DB);
    return { mode: "local", db, workspace: "default", source: "--local" };
  }
  if (flags.remote !== undefined) return { mode: "remote", baseUrl: flags.remote, token, source: "--remote" };
  const profileName = flags.profile ?? env.DDS_PROFILE;
  if (!flags.profile) {
    if (env.DDS_DATABASE_URL) return { mode: "local", db: env.DDS_DATABASE_URL, workspace: "default", source: "DDS_DATABASE_URL" };
    if (env.DDS_DB) return { mode: "local", db: env.DDS_DB, workspace: "default", source: "DDS_DB" };
    if (env.DDS_BASE_URL) return { mode: "remote", baseUrl: env.DDS_BASE_URL, token, source: "DDS_BASE_URL" };
  }
  const config = readConfig(env);
  const name = profileName ?? config.current;
  if (name) {
    const profile = config.profiles[name];
    if (!profile) {
      if (profileName) throw errors.usage(`no profile named "${name}"; see ddsctl profiles list`);
    } else if (profile.mode === "local") {
      return { mode: "local", db: profile.db, workspace: profile.workspace ?? "default", source: `profile ${name}` };
    } else {
      return { mode: "remote", baseUrl: profile.baseUrl, token: flags.token ?? env.DDS_API_TOKEN ?? profile.token, source: `profile ${name}` };
    }
  }
  return { mode: "local", db: DEFAULT_DB, workspace: "default", source: "default" };
}

/**
 * The target banner shown on stderr: `local .dds/dds.db`, `database postgres://…` (the
 * password hidden) or `remote https://…`.
 */
export function describeTarget(t: Target): string {
  if (t.mode === "remote") return `remote ${t.baseUrl}`;
  return isPostgresUrl(t.db) ? `database ${redactUrl(t.db)}` : `local ${t.db}`;
}
