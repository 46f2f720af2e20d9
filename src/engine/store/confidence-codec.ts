/**
 * Encodes a contribution's field confidences (keyed by fieldId, one per field of its data)
 * for storage: only those other than the default 1 are kept. Most evidence gives none, and
 * a confidence per field cost a third of a contribution row.
 */
export function encodeConfidences(confidences: Record<string, number>): string {
  const kept: Record<string, number> = {};
  for (const [id, c] of Object.entries(confidences)) if (c !== 1) kept[id] = c;
  return JSON.stringify(kept);
}

/** Decodes stored confidences back to one per field of `data` (rows stored whole read the same). */
export function decodeConfidences(text: string, data: Record<string, unknown>): Record<string, number> {
  const stored = JSON.parse(text) as Record<string, number>;
  const out: Record<string, number> = {};
  for (const id of Object.keys(data)) out[id] = stored[id] ?? 1;
  return out;
}
