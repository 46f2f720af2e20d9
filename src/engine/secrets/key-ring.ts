import { createHash, randomBytes } from "node:crypto";
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { DdsError } from "../../contract/errors.js";
import type { Store } from "../store/store.js";

/** One AES-256 key and the id written beside everything it encrypts. */
export interface SecretKey {
  id: string;
  key: Buffer;
}

/** Keys for encrypting secrets at rest: the first encrypts, all of them decrypt. */
export interface KeyRing {
  keys: SecretKey[];
  /** Where the keys came from, for messages: the key file's path, or `DDS_SECRET_KEY`. */
  source: string;
}

/** The environment variable that holds the keys instead of a key file. */
export const SECRET_KEY_ENV = "DDS_SECRET_KEY";

/** A key's id: 8 hex digits of its SHA-256 (names the key, reveals nothing of it). */
export function keyIdOf(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 8);
}

/** A new random 256-bit key. */
export function newSecretKey(): SecretKey {
  const key = randomBytes(32);
  return { id: keyIdOf(key), key };
}

/**
 * Parses keys written as base64 (or 64 hex digits), separated by commas or new lines, the
 * first being the current one. Each must be exactly 32 bytes.
 */
export function parseKeys(text: string, source: string): SecretKey[] {
  const parts = text.split(/[\s,]+/).filter((p) => p.length > 0);
  if (parts.length === 0) throw new DdsError("unavailable", `${source} holds no key; it needs a 32-byte key in base64 (ddsctl secrets rotate writes one)`);
  return parts.map((p, i) => {
    // Node's base64 decoder skips what is not base64: check the text itself first.
    const hex = /^[0-9a-f]{64}$/i.test(p);
    const key = hex ? Buffer.from(p, "hex") : /^[A-Za-z0-9+/_-]+={0,2}$/.test(p) ? Buffer.from(p, "base64") : Buffer.alloc(0);
    if (key.length !== 32) throw new DdsError("unavailable", `key ${i + 1} of ${source} is not 32 bytes of base64 or 64 hex digits`);
    return { id: keyIdOf(key), key };
  });
}

/**
 * Why `DDS_SECRET_KEY` in `env` cannot be used, or undefined when it is unset or holds good
 * keys: a long-running process checks it before it starts, instead of refusing its first
 * webhook.
 */
export function secretKeyProblem(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const text = env[SECRET_KEY_ENV];
  if (text === undefined || text.trim() === "") return undefined;
  try {
    parseKeys(text, SECRET_KEY_ENV);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The text a key file holds: one base64 key per line, the current one first. */
export function formatKeys(keys: readonly SecretKey[]): string {
  return `${keys.map((k) => k.key.toString("base64")).join("\n")}\n`;
}

/** The key file of a database: beside it, named after it (`dds.db` → `dds.db.key`). */
export function keyFileOf(dbPath: string): string {
  return `${dbPath}.key`;
}

/**
 * Writes a key file with mode 0600 atomically: to a private temporary file first, then
 * renamed over the old one (`exclusive`: linked, so a file another process created first
 * wins and is kept).
 */
export function writeKeyFile(path: string, keys: readonly SecretKey[], exclusive = false): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, formatKeys(keys));
  } finally {
    closeSync(fd);
  }
  try {
    if (exclusive) linkSync(tmp, path);
    else renameSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    if (exclusive) unlinkSync(tmp);
  }
}

/** When a file last changed (0 when it does not exist): a changed key file is read again. */
export function fileStamp(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * The key ring of a database: `DDS_SECRET_KEY` when set, else its key file, created
 * (mode 0600) with a new key when `create` is set and it does not exist yet. A database
 * in memory without `DDS_SECRET_KEY` gets a key that lives as long as the process.
 * Undefined when there is no key and none may be created.
 */
export function loadKeyRing(dbPath: string, env: Readonly<Record<string, string | undefined>>, create: boolean): KeyRing | undefined {
  const fromEnv = env[SECRET_KEY_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return { keys: parseKeys(fromEnv, SECRET_KEY_ENV), source: SECRET_KEY_ENV };
  if (dbPath === ":memory:" || dbPath === "") return create ? { keys: [newSecretKey()], source: "memory" } : undefined;
  const file = keyFileOf(dbPath);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new DdsError("unavailable", `cannot read the secret key file ${file}: ${(err as Error).message}`);
    if (!create) return undefined;
    writeKeyFile(file, [newSecretKey()], true);
    text = readFileSync(file, "utf8");
  }
  return { keys: parseKeys(text, file), source: file };
}

/**
 * The key ring of a store: `DDS_SECRET_KEY`, else (SQLite) the key file beside the
 * database. PostgreSQL has no file of its own, and its nodes must all hold the same keys:
 * there the keys come from `DDS_SECRET_KEY` only.
 */
export function keyRingOf(store: Store, env: Readonly<Record<string, string | undefined>>, create: boolean): KeyRing | undefined {
  if (store.file !== undefined) return loadKeyRing(store.file, env, create);
  const fromEnv = env[SECRET_KEY_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return loadKeyRing("", env, create);
  if (!create) return undefined;
  throw new DdsError("unavailable", `on PostgreSQL, secrets are encrypted with ${SECRET_KEY_ENV}: set it to a 32-byte base64 key, the same on every node`);
}
