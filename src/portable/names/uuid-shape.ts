const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True when `value` looks like a UUID of any version. Kept apart from `ids.ts` so the CLI
 * can tell ids from names without loading the uuid package at start-up.
 */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
