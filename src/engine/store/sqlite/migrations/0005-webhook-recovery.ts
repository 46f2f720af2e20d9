/**
 * Webhooks that outlast an outage (issue 20):
 * - `webhooks.failing_since` (epoch ms): the first failed attempt since the last success,
 *   cleared by a success; a webhook failing for the configured time is disabled;
 * - `webhooks.disabled_at`, `webhooks.disabled_reason`: set when it is disabled (by request
 *   or for failing), cleared when it is enabled again;
 * - `webhook_deliveries_by_hook_status (webhook_id, status, created_at)`: a webhook's
 *   deliveries of one status (`webhooks deliveries --status failed`), `recover` (its failed
 *   deliveries created since a time) and disabling (its pending deliveries), none of which
 *   should read the webhook's delivered history.
 */
export const sql = `
ALTER TABLE webhooks ADD COLUMN failing_since INTEGER;
ALTER TABLE webhooks ADD COLUMN disabled_at TEXT;
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;
CREATE INDEX webhook_deliveries_by_hook_status ON webhook_deliveries(webhook_id, status, created_at);
`;
