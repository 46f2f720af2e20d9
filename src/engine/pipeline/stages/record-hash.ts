/** The record hash: SHA-256 over the RFC 8785 canonical JSON of a record's data. */
import { canonicalJson } from "../../../portable/resolution/canonical-json.js";
import { sha256Hex } from "../../sha256-hex.js";

/** Lowercase hex SHA-256 of the canonical JSON of `data` (a record's `sha256`). */
export function sha256Of(data: unknown): string {
  return sha256Hex(canonicalJson(data));
}
