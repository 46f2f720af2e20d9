import type { Context } from "../../contract/schemas/index.js";
import type { Column, Output } from "../output/output.js";
import { statusStyle } from "./models.js";

/**
 * Columns of the context list, as kubectl shows pods: the name first, as people name
 * contexts, and no id, which would take half of an 80-column terminal; `-o wide` adds the
 * id (and metadata) whole, `-o json` and `-o name` print ids too.
 */
export function contextColumns(out: Output): Column<Context>[] {
  return [
    { header: "NAME", get: (c) => c.name ?? "" },
    { header: "TYPE", get: (c) => c.type ?? "" },
    { header: "STATUS", get: (c) => c.status, style: statusStyle(out) },
    { header: "FRESHNESS", get: (c) => c.freshness, style: statusStyle(out) },
    { header: "UPDATED", get: (c) => c.updatedAt },
    { header: "CONTEXT ID", get: (c) => c.contextId, wide: true },
    { header: "METADATA", get: (c) => (Object.keys(c.metadata).length > 0 ? c.metadata : ""), wide: true },
  ];
}

/** Renders one context (and its summary when present). */
export function renderContext(out: Output, c: Context): void {
  if (out.options.json) return out.json(c);
  const style = statusStyle(out);
  out.fields([
    ["contextId", c.contextId],
    ["name", c.name],
    ["type", c.type],
    ["status", style(c.status)],
    ["freshness", style(c.freshness)],
    ["metadata", c.metadata],
    ["createdAt", c.createdAt],
    ["updatedAt", c.updatedAt],
    ["resolvedAt", c.resolvedAt],
  ]);
  const s = c.summary;
  if (s) {
    out.line();
    out.fields([
      ["records", `${s.records.total}${Object.keys(s.records.byModel).length ? ` (${Object.entries(s.records.byModel).map(([k, v]) => `${k} ${v}`).join(", ")})` : ""}`],
      ["evaluations", `${s.evaluations.total} (${out.c.green(`${s.evaluations.passed} passed`)}, ${out.c.red(`${s.evaluations.failed} failed`)}, ${s.evaluations.stale} stale)`],
      ["stale", `${s.stale.records} records, ${s.stale.evaluations} evaluations`],
      ["lastResolvedAt", s.lastResolvedAt],
    ]);
  }
}
