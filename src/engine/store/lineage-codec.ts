import type { FieldLineage } from "../../contract/schemas/index.js";
import { canonicalJson } from "../../portable/resolution/canonical-json.js";
import { flat } from "../../util/flat-string.js";

/** A winning contribution as stored once per record: id, source id, source type. */
type StoredSource = [string, string | null, FieldLineage["sourceType"]];
/** Version 2 of a field's lineage: index into the sources (-1: none), confidence, policy, candidates. */
type StoredFieldV2 = [number, number | null, FieldLineage["policy"], number];
/**
 * Version 3 of a field's lineage: `i` alone (source i won with confidence 1, the record's
 * usual policy, one candidate), `[i, confidence]` (one candidate, the usual policy),
 * `[i, confidence, candidates]`, `[i, confidence, candidates, policy]`, or `"c"` (a computed
 * field).
 */
type StoredFieldV3 = number | "c" | [number, number | null] | [number, number | null, number] | [number, number | null, number, FieldLineage["policy"]];
/** Version 1 was the API's object itself; version 2 stored each winner once; version 3 also says once the policy most fields share. */
type StoredLineage = [2, StoredSource[], Record<string, StoredFieldV2>] | [3, StoredSource[], FieldLineage["policy"], Record<string, StoredFieldV3>];

const COMPUTED: FieldLineage = { contributionId: null, sourceId: null, sourceType: null, confidence: null, policy: "computed", candidates: 0 };

/**
 * Writes a record's stored lineage field by field, in the order given: each winning
 * contribution (id, source id, type) once, in order of first use, and per field the index
 * of its winner, its confidence, its policy and its number of candidates, as short as the
 * usual case allows (`usual`: the policy most fields share, written once). The text is
 * that of JSON.stringify of the stored form, built directly: every record a pass builds is
 * encoded, and building the arrays first cost several times as much.
 */
export class LineageWriter {
  private readonly seen: (readonly [string | null, string | null, string | null])[] = [];
  private sources = "";
  private fields = "";

  constructor(private readonly usual: string) {}

  /** Adds one field's lineage. */
  field(name: string, contributionId: string | null, sourceId: string | null, sourceType: string | null, confidence: number | null, policy: string, candidates: number): void {
    let entry: string;
    if (policy === "computed" && contributionId === null && sourceId === null && sourceType === null && confidence === null && candidates === 0) entry = '"c"';
    else {
      let i = -1;
      if (contributionId !== null || sourceId !== null || sourceType !== null) {
        const seen = this.seen;
        for (let k = 0; k < seen.length; k++) {
          const s = seen[k];
          if (s[0] === contributionId && s[1] === sourceId && s[2] === sourceType) {
            i = k;
            break;
          }
        }
        if (i < 0) {
          i = seen.push([contributionId, sourceId, sourceType]) - 1;
          this.sources += `${i === 0 ? "" : ","}[${quoteOnce(contributionId ?? "")},${text(sourceId)},${text(sourceType)}]`;
        }
      }
      if (policy !== this.usual) entry = `[${i},${num(confidence)},${num(candidates)},${text(policy)}]`;
      else if (candidates !== 1) entry = `[${i},${num(confidence)},${num(candidates)}]`;
      else if (confidence === 1 && i >= 0) entry = String(i);
      else entry = `[${i},${num(confidence)}]`;
    }
    this.fields += `${this.fields === "" ? "" : ","}${text(name)}:${entry}`;
  }

  /** The stored text. */
  text(): string {
    // Kept by a write group until its end: flat, not a rope of every piece (flat-string.ts).
    return flat(`[3,[${this.sources}],${text(this.usual)},{${this.fields}}]`);
  }
}

/** The policy most of these fields use (computed ones aside), or the default one. */
export function usualPolicy(policies: Iterable<string>): string {
  const counts = new Map<string, number>();
  let best = "highest_confidence";
  let most = 0;
  for (const p of policies) {
    if (p === "computed") continue;
    const n = (counts.get(p) ?? 0) + 1;
    counts.set(p, n);
    if (n > most) [best, most] = [p, n];
  }
  return best;
}

/**
 * Encodes a record's lineage for storage. The API's shape repeats the winning
 * contribution's id, source id and type in every field, and one contribution usually wins
 * them all, under one policy: each is stored once per record, the column a sixth of the
 * size, and the pipeline rewrites that much less per pass. `usual` is the policy written
 * once (a pass gives its model's, see modelLineagePolicy): by default the one most of these
 * fields use.
 */
export function encodeLineage(lineage: Record<string, FieldLineage>, usual?: string): string {
  const names = Object.keys(lineage);
  const w = new LineageWriter(usual ?? usualPolicy(names.map((n) => lineage[n].policy)));
  for (const name of names) {
    const l = lineage[name];
    w.field(name, l.contributionId, l.sourceId, l.sourceType, l.confidence, l.policy, l.candidates);
  }
  return w.text();
}

/** A string as JSON: quoted at once when nothing in it needs escaping (ids, names, policies). */
const PLAIN = /^[\w .:@/+-]*$/;
const quoteOnce = (s: string): string => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));
// Field names, policies, source ids and types recur in every record: each is quoted once,
// within a bound (unique strings, contribution ids above all, would only fill it).
const quoted = new Map<string, string>();
const text = (s: string | null): string => {
  if (s === null) return "null";
  let q = quoted.get(s);
  if (q === undefined) {
    q = quoteOnce(s);
    if (s.length <= 64) {
      if (quoted.size >= 4096) quoted.clear();
      quoted.set(s, q);
    }
  }
  return q;
};
/** A number as JSON (what JSON.stringify writes: ES number text, null for none). */
const num = (n: number | null): string => (n === null || !Number.isFinite(n) ? "null" : String(n));

/** Decodes a stored lineage, of any version, into the API's shape (keyed by field name). */
export function decodeLineage(stored: string): Record<string, FieldLineage> {
  const parsed = JSON.parse(stored) as StoredLineage | Record<string, FieldLineage>;
  if (!Array.isArray(parsed)) return parsed;
  const sources = parsed[1];
  const winner = (i: number, confidence: number | null, policy: FieldLineage["policy"], candidates: number): FieldLineage => {
    const source = i >= 0 ? sources[i] : undefined;
    return { contributionId: source ? source[0] || null : null, sourceId: source ? source[1] : null, sourceType: source ? source[2] : null, confidence, policy, candidates };
  };
  const out: Record<string, FieldLineage> = {};
  if (parsed[0] === 2) {
    for (const [name, [i, confidence, policy, candidates]] of Object.entries(parsed[2])) out[name] = winner(i, confidence, policy, candidates);
    return out;
  }
  const usual = parsed[2];
  for (const [name, f] of Object.entries(parsed[3])) {
    if (f === "c") out[name] = { ...COMPUTED };
    else if (typeof f === "number") out[name] = winner(f, 1, usual, 1);
    else out[name] = winner(f[0], f[1], f.length === 4 ? f[3] : usual, f.length >= 3 ? (f[2] as number) : 1);
  }
  return out;
}

/**
 * True when two stored lineages say the same: the same text, or (one of them written in an
 * earlier version) the same once decoded, so a pass does not rewrite a record only because
 * its lineage was stored the old way.
 */
export function sameLineage(stored: string | null, next: string): boolean {
  if (stored === next) return true;
  if (stored === null || stored.startsWith("[3,")) return false;
  return canonicalJson(decodeLineage(stored)) === canonicalJson(decodeLineage(next));
}
