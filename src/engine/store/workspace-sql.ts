/**
 * The integer key of the workspace named by the next `?`, as a scalar subquery: every
 * workspace-scoped statement finds its workspace by name through the unique index, once
 * per statement (both engines evaluate an uncorrelated subquery once).
 */
export const WORKSPACE = "(SELECT id FROM workspaces WHERE name = ?)";
