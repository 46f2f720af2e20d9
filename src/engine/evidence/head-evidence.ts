import { canonicalJson } from "../../portable/resolution/canonical-json.js";

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

/** JSON texts of equal values (key order aside; PostgreSQL's jsonb writes its own). */
function sameJson(a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
}

/** True when `next` says exactly what `head`, the accepted contribution of its source, says. */
export function sameEvidence(head: HeadEvidence, next: HeadEvidence): boolean {
  return head.sourceType === next.sourceType && head.observedAt === next.observedAt && sameJson(head.data, next.data) && sameJson(head.confidences, next.confidences);
}
