import { DdsError } from "../../contract/errors.js";
import type { Store } from "../store/store.js";
import { createSecretRowsRepo, type SecretRow } from "../store/secret-rows-repo.js";
import { keyFileOf, keyRingOf, newSecretKey, SECRET_KEY_ENV, writeKeyFile, type KeyRing } from "./key-ring.js";
import { isSealed, openWith, sealedKeyId, sealWith, type SecretPurpose } from "./secret-box.js";

/** What a rotation did. */
export interface RotationReport {
  /** Where the keys live: the key file's path, or DDS_SECRET_KEY. */
  source: string;
  /** The key everything is encrypted with now. */
  keyId: string;
  /** Keys no stored value needs any more (removed from the key file; drop them from DDS_SECRET_KEY). */
  retiredKeyIds: string[];
  /** Values re-encrypted, and among them values that were stored in clear text. */
  resealed: number;
  sealedFromClear: number;
}

const purposeOf = (row: SecretRow): SecretPurpose => (row.table === "webhooks" ? "webhook-secret" : "replay-body");

/**
 * The new form of every secret under `ring`'s current key (pure): sealed values are opened
 * with whichever key of the ring wrote them, clear ones (from before encryption) are
 * sealed. `onlyClear` leaves sealed values as they are. A value no key of the ring opens
 * stops everything: nothing is rewritten rather than a secret lost.
 */
export function resealAll(rows: readonly SecretRow[], ring: KeyRing, onlyClear = false): { row: SecretRow; value: string; fromClear: boolean }[] {
  const out: { row: SecretRow; value: string; fromClear: boolean }[] = [];
  for (const row of rows) {
    const sealed = isSealed(row.value);
    if (sealed && onlyClear) continue;
    const plain = sealed ? openWith(ring, row.value, purposeOf(row)) : row.value;
    if (plain === undefined) {
      throw new DdsError("unavailable", `a stored ${purposeOf(row)} was encrypted with key ${sealedKeyId(row.value)}, which ${ring.source} does not hold; nothing was changed`);
    }
    out.push({ row, value: sealWith(ring, plain, purposeOf(row)), fromClear: !sealed });
  }
  return out;
}

/**
 * Seals secrets a database stored in clear text before encryption existed (run when
 * `ddsctl serve` starts). Returns how many; creates the key file only when there are any.
 */
export async function sealClearSecrets(store: Store, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const repo = createSecretRowsRepo(store);
  if (!(await repo.all()).some((r) => !isSealed(r.value))) return 0;
  const ring = keyRingOf(store, env, true)!;
  return repo.scrubbing(() =>
    store.sql.tx(async (tx) => {
      const updates = resealAll(await repo.all(tx), ring, true);
      for (const u of updates) await repo.update(tx, u.row, u.value);
      return updates.length;
    }),
  );
}

/**
 * Rotates the key secrets are encrypted with. With a key file: a new key is written first
 * (before the old ones, which still decrypt), every secret is re-encrypted in one
 * transaction, and the file keeps only the new key, rewritten inside that transaction
 * (servers read the file again before they seal anything, inside their own write lock, so
 * none seals with a retired key). With `DDS_SECRET_KEY`, its first key is the new one: put
 * it first, keep the old ones after it until this has run, then drop them.
 */
export async function rotateSecrets(store: Store, env: Readonly<Record<string, string | undefined>>): Promise<RotationReport> {
  const repo = createSecretRowsRepo(store);
  const fromEnv = env[SECRET_KEY_ENV] !== undefined && env[SECRET_KEY_ENV]!.trim() !== "";
  const current = keyRingOf(store, env, !fromEnv);
  if (!current) throw new DdsError("unavailable", `no key to rotate to: set ${SECRET_KEY_ENV} or let ddsctl create ${keyFileOf(store.location)}`);
  const file = keyFileOf(store.location);
  const ring: KeyRing = fromEnv ? current : { keys: [newSecretKey(), ...current.keys], source: file };
  if (!fromEnv) writeKeyFile(file, ring.keys);
  const counts = await repo.scrubbing(() =>
    store.sql.tx(async (tx) => {
      const updates = resealAll(await repo.all(tx), ring);
      for (const u of updates) await repo.update(tx, u.row, u.value);
      if (!fromEnv) writeKeyFile(file, [ring.keys[0]]);
      return { resealed: updates.length, sealedFromClear: updates.filter((u) => u.fromClear).length };
    }),
  );
  return { source: ring.source, keyId: ring.keys[0].id, retiredKeyIds: ring.keys.slice(1).map((k) => k.id), ...counts };
}
