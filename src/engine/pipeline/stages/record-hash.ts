/** The record hash: SHA-256 over the RFC 8785 canonical JSON of a record's data. */
import { createHash } from "node:crypto";
import { canonicalJson } from "../../../portable/resolution/canonical-json.js";

/** Lowercase hex SHA-256 of the canonical JSON of `data` (a record's `sha256`). */
export function sha256Of(data: unknown): string {
  return createHash("sha256").update(canonicalJson(data), "utf8").digest("hex");
}
