import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { DdsError } from "../../contract/errors.js";
import type { Store } from "../store/store.js";
import { fileStamp, keyFileOf, keyRingOf, SECRET_KEY_ENV, type KeyRing } from "./key-ring.js";

/** What a sealed value starts with: the scheme and its version. */
const PREFIX = "enc:v1:";

/** What a secret is for; bound into its ciphertext, so one cannot stand in for another. */
export type SecretPurpose = "webhook-secret" | "replay-body";

/** True for a value written by {@link sealWith}. */
export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** The id of the key a sealed value was written with. */
export function sealedKeyId(value: string): string | undefined {
  return isSealed(value) ? value.slice(PREFIX.length).split(":")[0] : undefined;
}

/**
 * Encrypts with the ring's current key: AES-256-GCM, a random 96-bit nonce, the purpose as
 * associated data. Written as `enc:v1:<keyId>:<nonce>:<ciphertext>:<tag>` (base64url).
 */
export function sealWith(ring: KeyRing, plain: string, purpose: SecretPurpose): string {
  const { id, key } = ring.keys[0];
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(purpose));
  const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `${PREFIX}${id}:${[iv, ct, cipher.getAuthTag()].map((b) => b.toString("base64url")).join(":")}`;
}

/**
 * Decrypts a sealed value with whichever key of the ring wrote it; undefined when the ring
 * lacks that key. A value that was tampered with, or sealed for another purpose, throws.
 */
export function openWith(ring: KeyRing, sealed: string, purpose: SecretPurpose): string | undefined {
  const [id, iv, ct, tag] = sealed.slice(PREFIX.length).split(":");
  const found = ring.keys.find((k) => k.id === id);
  if (!found) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", found.key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new DdsError("unavailable", `a stored ${purpose} does not decrypt with key ${id} of ${ring.source}: it was altered`);
  }
}

/** Encrypts and decrypts the secrets one database keeps. */
export interface SecretBox {
  /** Encrypts with the current key (creating the key file on first use). Call it inside the write's transaction. */
  seal(plain: string, purpose: SecretPurpose): string;
  /** Decrypts a sealed value; a value stored before encryption existed is returned as it is. */
  open(value: string, purpose: SecretPurpose): string;
}

interface BoxState {
  ring: KeyRing | undefined;
  stamp: number;
}

const states = new WeakMap<object, BoxState>();

/**
 * The secret box of a store (one per open store). Its keys come from `DDS_SECRET_KEY`, or
 * (SQLite) from the key file beside the database, which is read again whenever it changed
 * (after a `ddsctl secrets rotate` by another process): a seal inside a write transaction
 * therefore always uses the key the file names at that moment. On PostgreSQL the keys come
 * from `DDS_SECRET_KEY` only, the same on every node.
 */
export function secretBoxFor(store: Store, env: Readonly<Record<string, string | undefined>>): SecretBox {
  let state = states.get(store);
  if (!state) {
    state = { ring: undefined, stamp: -1 };
    states.set(store, state);
  }
  const s = state;
  const path = store.file ?? "";
  const file = keyFileOf(path);
  const fromFile = env[SECRET_KEY_ENV] === undefined && path !== ":memory:" && path !== "";
  const ring = (create: boolean): KeyRing | undefined => {
    const stamp = fromFile ? fileStamp(file) : 0;
    if (!s.ring || stamp !== s.stamp) {
      s.ring = keyRingOf(store, env, create) ?? s.ring;
      s.stamp = fromFile ? fileStamp(file) : 0;
    }
    return s.ring;
  };
  return {
    seal: (plain, purpose) => sealWith(ring(true)!, plain, purpose),
    open(value, purpose) {
      if (!isSealed(value)) return value;
      const r = ring(false);
      const plain = r ? openWith(r, value, purpose) : undefined;
      if (plain === undefined) {
        const where = r?.source ?? (fromFile ? file : SECRET_KEY_ENV);
        throw new DdsError("unavailable", `a stored ${purpose} was encrypted with key ${sealedKeyId(value)}, which ${where} does not hold (restore the key file or set ${SECRET_KEY_ENV})`);
      }
      return plain;
    },
  };
}
