/** The current time as ISO 8601 UTC with milliseconds (`2026-11-22T10:00:00.000Z`). */
export function nowIso(): string {
  return new Date().toISOString();
}
