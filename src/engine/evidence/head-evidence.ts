/**
 * What a contribution says, as the next one of the same source to the same record is
 * compared with it: its values and confidences as stored (text), its source type and
 * observedAt. Equal evidence is not stored again (docs/resources.md, "Sending the same
 * contribution again"): a file imported again after its keys expired, or re-run after its
 * rejected lines were fixed in place, changes nothing it had stored.
 */
export interface HeadEvidence {
  sourceType: string;
  data: string;
  confidences: string | null;
  observedAt: string | null;
}

/**
 * JSON texts of equal values (key order aside; PostgreSQL's jsonb writes its own spacing
 * and order). Most lines of a file that supersedes say something else than the head: texts
 * without a space (the store's own encoding) of different lengths cannot hold equal values,
 * which settles them without parsing.
 */
function sameJson(a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (a.length !== b.length && !a.includes(" ") && !b.includes(" ")) return false;
  return sameValue(JSON.parse(a), JSON.parse(b));
}

/** Deep equality of two parsed JSON values (objects by their keys, in any order). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  const ob = b as Record<string, unknown>;
  const oa = a as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(ob, k) && sameValue(oa[k], ob[k]));
}

/** True when `next` says exactly what `head`, the accepted contribution of its source, says. */
export function sameEvidence(head: HeadEvidence, next: HeadEvidence): boolean {
  return head.sourceType === next.sourceType && head.observedAt === next.observedAt && sameJson(head.data, next.data) && sameJson(head.confidences, next.confidences);
}
