import { errors } from "../contract/errors.js";
import { checkWorkspaceName, DEFAULT_WORKSPACE } from "../contract/workspace.js";
import { normalizeBaseUrl } from "../client/base-url.js";
import { displayPgUrl, isPostgresUrl } from "../engine/store/location.js";
import { readConfig, type Config } from "./config.js";
import type { Env } from "./core/io.js";

/**
 * Where commands run: in-process on a database (`db`: a SQLite path or a `postgres://`
 * URL, in one of its workspaces), or a remote service (in its token's workspace).
 */
export type Target =
  | { mode: "local"; db: string; workspace: string; source: string; env?: Env }
  | { mode: "remote"; baseUrl: string; token?: string; source: string };

/** The global flags that pick a target. */
export interface TargetFlags {
  local?: string | boolean;
  database?: string;
  remote?: string;
  token?: string;
  profile?: string;
  workspace?: string;
}

/** How a command takes its target. */
export interface TargetOptions {
  /**
   * False for commands that stay on the local database unless a flag names a remote
   * target (`demo`): a remote profile, DDS_PROFILE or DDS_BASE_URL does not move them.
   */
  ambientRemote?: boolean;
}

/** Default local database, relative to the working directory. */
export const DEFAULT_DB = ".dds/dds.db";

type Local = Extract<Target, { mode: "local" }>;
type Remote = Extract<Target, { mode: "remote" }>;

/**
 * The token of a saved profile for the same service (`--remote http://127.0.0.1:8080`
 * after `ddsctl login --url http://127.0.0.1:8080/v1`): the named profile's, else the
 * current one's, else the first that has one.
 */
function profileToken(config: Config, baseUrl: string, named: string | undefined): string | undefined {
  const same = (url: string) => {
    try {
      return normalizeBaseUrl(url) === normalizeBaseUrl(baseUrl);
    } catch {
      return false;
    }
  };
  const order = [named, config.current, ...Object.keys(config.profiles)].filter((n): n is string => n !== undefined);
  for (const name of order) {
    const p = config.profiles[name];
    if (p?.mode === "remote" && p.token && same(p.baseUrl)) return p.token;
  }
  return undefined;
}

/** The first target source that says something (see {@link resolveTarget}), before the workspace. */
function pick(flags: TargetFlags, env: Env, options: TargetOptions): { target: Local | Remote; profileWorkspace?: string } {
  const given = [flags.database !== undefined && "--database", flags.local !== undefined && "--local", flags.remote !== undefined && "--remote"].filter(Boolean);
  if (given.length > 1) throw errors.usage(`${given.join(" and ")} cannot be used together`);
  const local = (db: string, source: string): Local => ({ mode: "local", db, workspace: DEFAULT_WORKSPACE, source });
  if (flags.database !== undefined) {
    if (flags.database.trim() === "") throw errors.usage("--database needs a SQLite path or a postgres:// URL");
    return { target: local(flags.database, "--database") };
  }
  if (flags.local !== undefined) return { target: local(typeof flags.local === "string" ? flags.local : (env.DDS_DB ?? DEFAULT_DB), "--local") };
  const profileName = flags.profile ?? env.DDS_PROFILE;
  if (flags.remote !== undefined) {
    const token = flags.token ?? env.DDS_API_TOKEN ?? profileToken(readConfig(env), flags.remote, profileName);
    return { target: { mode: "remote", baseUrl: flags.remote, token, source: "--remote" } };
  }
  // Only a flag moves such a command off the local database: not the environment or a profile.
  const ambient = options.ambientRemote !== false || flags.profile !== undefined;
  if (!flags.profile) {
    if (env.DDS_DATABASE_URL) return { target: local(env.DDS_DATABASE_URL, "DDS_DATABASE_URL") };
    if (env.DDS_DB) return { target: local(env.DDS_DB, "DDS_DB") };
    if (env.DDS_BASE_URL && ambient) return { target: { mode: "remote", baseUrl: env.DDS_BASE_URL, token: flags.token ?? env.DDS_API_TOKEN, source: "DDS_BASE_URL" } };
  }
  const config = readConfig(env);
  const name = profileName ?? config.current;
  if (name) {
    const profile = config.profiles[name];
    if (!profile) {
      if (profileName) throw errors.usage(`no profile named "${name}"; see ddsctl profiles list`);
    } else if (profile.mode === "local") {
      return { target: local(profile.db, `profile ${name}`), profileWorkspace: profile.workspace };
    } else if (ambient) {
      return { target: { mode: "remote", baseUrl: profile.baseUrl, token: flags.token ?? env.DDS_API_TOKEN ?? profile.token, source: `profile ${name}` } };
    }
  }
  return { target: local(DEFAULT_DB, "default") };
}

/**
 * Resolves the target with the documented precedence (docs/cli.md, "Targets"): flags
 * (`--database`, `--local`, `--remote`) > environment (DDS_DATABASE_URL, DDS_DB,
 * DDS_BASE_URL, DDS_API_TOKEN, DDS_PROFILE) > the config's current profile > the local
 * `./.dds/dds.db`. An in-process target runs in a workspace: `--workspace`, else
 * DDS_WORKSPACE, else its profile's, else `default`. A remote service acts in its token's
 * workspace, so `--workspace` there is a usage error (DDS_WORKSPACE is not looked at).
 */
export function resolveTarget(flags: TargetFlags, env: Env, options: TargetOptions = {}): Target {
  const { target, profileWorkspace } = pick(flags, env, options);
  if (target.mode === "remote") {
    if (flags.workspace !== undefined) {
      throw errors.usage(`--workspace picks a workspace of a database this process opens; ${target.baseUrl} acts in the workspace of its token (ddsctl tokens create --workspace <name> on the server's database)`);
    }
    return target;
  }
  const workspace = flags.workspace ?? env.DDS_WORKSPACE ?? profileWorkspace;
  // A PostgreSQL URL is shown with what libpq's variables add to it (PGHOST…).
  const located = isPostgresUrl(target.db) ? { ...target, env } : target;
  return workspace === undefined ? located : { ...located, workspace: checkWorkspaceName(workspace) };
}

/**
 * The target banner shown on stderr: `local .dds/dds.db (workspace default)`, `database
 * postgres://… (workspace acme)` (the password hidden) or `remote https://…`. Commands
 * that span every workspace (`serve`, tokens) leave the workspace out.
 */
export function describeTarget(t: Target, options: { workspace?: boolean } = {}): string {
  if (t.mode === "remote") return `remote ${t.baseUrl}`;
  const where = isPostgresUrl(t.db) ? `database ${displayPgUrl(t.db, t.env)}` : `local ${t.db}`;
  return options.workspace === false ? where : `${where} (workspace ${t.workspace})`;
}
