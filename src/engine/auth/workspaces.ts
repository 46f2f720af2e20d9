import type { Store } from "../store/store.js";
import { createWorkspaceRepo, type WorkspaceRow } from "../store/workspace-repo.js";

/** A workspace of a database, with what it holds (`ddsctl workspaces list`). */
export type WorkspaceInfo = WorkspaceRow;

/**
 * Every workspace of the database, oldest first: its name, when it was made (by the first
 * token or in-process command that named it), its unrevoked tokens, live models and contexts.
 */
export async function listWorkspaces(store: Store): Promise<WorkspaceInfo[]> {
  return createWorkspaceRepo(store.sql).list();
}
