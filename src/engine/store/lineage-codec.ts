import type { FieldLineage } from "../../contract/schemas/index.js";

/** The stored form of a field's lineage: index into the sources (-1: none), confidence, policy, candidates. */
type StoredField = [number, number | null, FieldLineage["policy"], number];
/** A winning contribution as stored once per record: id, source id, source type. */
type StoredSource = [string, string | null, FieldLineage["sourceType"]];
/** Version 2 of the stored lineage (version 1 was the API's object itself). */
type StoredLineage = [2, StoredSource[], Record<string, StoredField>];

/**
 * Encodes a record's lineage for storage. The API's shape repeats the winning
 * contribution's id, source id and type in every field, and one contribution usually wins
 * them all: stored once per record, the column is a quarter of the size, and the pipeline
 * rewrites a quarter of the bytes per pass.
 */
export function encodeLineage(lineage: Record<string, FieldLineage>): string {
  // Written as text (the same text as JSON.stringify of the stored form): every record a
  // pass builds is encoded, and building the arrays first cost several times as much.
  const seen: FieldLineage[] = [];
  let sources = "";
  let fields = "";
  for (const name of Object.keys(lineage)) {
    const l = lineage[name];
    let i = -1;
    if (l.contributionId !== null || l.sourceId !== null || l.sourceType !== null) {
      i = seen.findIndex((s) => s.contributionId === l.contributionId && s.sourceId === l.sourceId && s.sourceType === l.sourceType);
      if (i < 0) {
        i = seen.push(l) - 1;
        sources += `${i === 0 ? "" : ","}[${text(l.contributionId ?? "")},${text(l.sourceId)},${text(l.sourceType)}]`;
      }
    }
    fields += `${fields === "" ? "" : ","}${text(name)}:[${i},${num(l.confidence)},${text(l.policy)},${num(l.candidates)}]`;
  }
  return `[2,[${sources}],{${fields}}]`;
}

/** A string as JSON: quoted at once when nothing in it needs escaping (ids, names, policies). */
const PLAIN = /^[\w .:@/+-]*$/;
const text = (s: string | null): string => (s === null ? "null" : PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));
/** A number as JSON (what JSON.stringify writes: ES number text, null for none). */
const num = (n: number | null): string => (n === null || !Number.isFinite(n) ? "null" : String(n));

/** Decodes a stored lineage, of either version, into the API's shape (keyed by field name). */
export function decodeLineage(text: string): Record<string, FieldLineage> {
  const parsed = JSON.parse(text) as StoredLineage | Record<string, FieldLineage>;
  if (!Array.isArray(parsed)) return parsed;
  const [, sources, fields] = parsed;
  const out: Record<string, FieldLineage> = {};
  for (const [name, [i, confidence, policy, candidates]] of Object.entries(fields)) {
    const source = i >= 0 ? sources[i] : undefined;
    out[name] = {
      contributionId: source ? source[0] || null : null,
      sourceId: source ? source[1] : null,
      sourceType: source ? source[2] : null,
      confidence,
      policy,
      candidates,
    };
  }
  return out;
}
