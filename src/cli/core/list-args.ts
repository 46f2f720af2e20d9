/**
 * The help of the flags every list takes (`--filter`, `--sort`; see listArgs in
 * shared-args.ts), generated from the list's own spec (LIST_SPECS): its filterable and sortable
 * fields and filter examples that are valid for it, so no list shows an example it would
 * refuse. The same examples end each list command's examples, and a meta-test runs them.
 */
import { LIST_SPECS, type ListName, type ListSpec } from "../../contract/list-query.js";

/** A sample value for a text filter, per field name (any text is valid; these read well). */
const TEXT_SAMPLES: Record<string, string> = { name: "purchase", url: "example.com", sourceId: "doc-1", "rule.name": "credit" };

/** Quotes a shell word when it holds anything but plain characters (`>=`, `[in]`, `!=`). */
export function shellWord(word: string): string {
  return /^[\w.,:=@/-]+$/.test(word) ? word : `'${word}'`;
}

/**
 * Up to two `--filter` expressions this list accepts: an enumerated field's first value
 * (`status` first), a metadata key, a time since a date, or a text match, in that order of
 * preference, never two on one field.
 */
export function filterExamples(list: ListName): string[] {
  const spec: ListSpec = LIST_SPECS[list];
  const kinds = spec.kinds ?? {};
  const enums = spec.filters.filter((f) => Array.isArray(kinds[f]));
  const enumField = enums.includes("status") ? "status" : enums[0];
  const candidates: string[] = [];
  if (enumField) candidates.push(`${enumField}=${(kinds[enumField] as readonly string[])[0]}`);
  if (spec.filters.includes("metadata.*")) candidates.push("metadata.region=west");
  const time = spec.filters.includes("createdAt") ? "createdAt" : spec.filters.find((f) => kinds[f] === "timestamp");
  if (time) candidates.push(`${time}>=2026-01-01`);
  const text = spec.filters.find((f) => !f.endsWith(".*") && (kinds[f] ?? "text") === "text");
  if (text) candidates.push(`${text}~=${TEXT_SAMPLES[text] ?? "a"}`);
  return candidates.slice(0, 2);
}

/** `ddsctl <command> [args] --filter … --filter …`: the generated example of a list command. */
export function filterExample(command: string, list: ListName, args = ""): string {
  return `ddsctl ${command}${args ? ` ${args}` : ""} ${filterExamples(list).map((e) => `--filter ${shellWord(e)}`).join(" ")}`;
}

/** The `--filter` help of a list: its syntax, fields and valid examples. */
export function filterHelp(list: ListName): string {
  return `filter (repeatable): field=value, !=, >, >=, <, <=, ~= (contains) or field[op]=value; fields: ${LIST_SPECS[list].filters.join(", ")}; e.g. ${filterExamples(list).map(shellWord).join(" ")}`;
}

/** The `--sort` help of a list: its sortable fields. */
export function sortHelp(list: ListName): string {
  const sorts: readonly string[] = LIST_SPECS[list].sorts;
  return `sort keys, comma-separated, '-' for descending: ${sorts.join(", ")} (e.g. -${sorts.includes("createdAt") ? "createdAt" : sorts[0]})`;
}
