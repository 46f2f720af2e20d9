/**
 * Two indexes fewer on the evidence tables. An index led by `context_id` takes inserts in
 * as many places as there are contexts being written, and SQLite rebalances pages for each
 * of them: on an interleaved import (every line another context) those two indexes cost as
 * much as the rows themselves. What they served is served without them:
 * - a context's live records: `records_identity_live (context_id, model_id, identity_key)`;
 * - a context's contributions: its live records, then `contributions_by_record`;
 * - listing contributions of one context: its records (live ones through the identity
 *   index, soft-deleted ones through the small partial index below), then their contributions.
 */
export const sql = `
DROP INDEX records_by_context;
DROP INDEX contributions_by_context;
CREATE INDEX records_deleted_by_context ON records(context_id) WHERE deleted_at IS NOT NULL;
`;
