import { randomBytes } from "node:crypto";
import { sha256Hex } from "../sha256-hex.js";

/** Every token starts with this, so secret scanners and people recognise it. */
export const TOKEN_PREFIX = "dds_";

/** A new token: the prefix and 32 random bytes, base64url (43 characters). */
export function generateToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** What is stored instead of the token: its SHA-256, lowercase hex. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** Cheap shape check, so garbage never costs a database lookup. */
export function looksLikeToken(value: string): boolean {
  return value.startsWith(TOKEN_PREFIX) && value.length > TOKEN_PREFIX.length && value.length <= 200;
}
