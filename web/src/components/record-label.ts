/** How a record is named in the graph and the lists: its identity values, or a short id. */
import type { DdsRecord, Model } from "../../../src/contract/schemas/index.js";

/** `applicantId=a1` from a record's identity fields, or a short id. */
export function recordLabel(r: DdsRecord, model: Model | undefined): string {
  const identity = model?.identity ?? [];
  if (identity.length === 0) return model ? "" : r.recordId.slice(0, 8);
  return identity.map((f) => `${f}=${typeof r.data[f] === "string" ? r.data[f] : JSON.stringify(r.data[f] ?? null)}`).join(", ");
}
