/**
 * Workspaces: the data of one database is kept apart per workspace. A token acts in the
 * workspace it was issued for; an in-process command in the one it is given (`default`
 * unless said otherwise). One rule for their names, wherever a name is taken.
 */
import { errors } from "./errors.js";

/** The workspace a database keeps its data in unless told otherwise. */
export const DEFAULT_WORKSPACE = "default";

const WORKSPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Checks a workspace name (1-64 letters, digits, `_`, `.` or `-`); a bad one is a usage error. */
export function checkWorkspaceName(name: string): string {
  if (!WORKSPACE_NAME.test(name)) throw errors.usage(`workspace "${name}" must be 1-64 letters, digits, '_', '.' or '-'`);
  return name;
}
