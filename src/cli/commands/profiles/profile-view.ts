import type { Profile } from "../../config.js";

/** A profile as list and messages show it: never its token. */
export interface ProfileView {
  name: string;
  mode: Profile["mode"];
  target: string;
  current: boolean;
  /** Whether a token is stored (remote profiles); the token itself is never printed. */
  hasToken: boolean;
  /** Local profiles: the workspace commands work in, when not the default. */
  workspace?: string;
}

/** The view of one saved profile. */
export function profileView(name: string, profile: Profile, current: string | undefined): ProfileView {
  return {
    name,
    mode: profile.mode,
    target: profile.mode === "local" ? profile.db : profile.baseUrl,
    current: name === current,
    hasToken: profile.mode === "remote" && Boolean(profile.token),
    ...(profile.mode === "local" && profile.workspace ? { workspace: profile.workspace } : {}),
  };
}

/** `local /path/to/dds.db` or `remote https://…`. */
export function describeProfile(profile: Profile): string {
  if (profile.mode === "remote") return `remote ${profile.baseUrl}`;
  return profile.workspace ? `local ${profile.db} (workspace ${profile.workspace})` : `local ${profile.db}`;
}
