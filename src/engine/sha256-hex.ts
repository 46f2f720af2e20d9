import * as crypto from "node:crypto";

type OneShot = (algorithm: string, data: string, encoding: "hex") => string;

/**
 * Lowercase hex SHA-256 of a UTF-8 string: with the one-shot hash (Node >= 20.12), several
 * times cheaper than a Hash object, which matters where every request (a token) or every
 * record a pass builds is hashed. node:crypto is looked at on the first call, not when this
 * module loads (the CLI loads it on first use).
 */
export function sha256Hex(text: string): string {
  const oneShot = (crypto as { hash?: OneShot }).hash;
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text, "utf8").digest("hex");
}
