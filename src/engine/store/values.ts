import { idText } from "../../util/ids.js";

/**
 * The store's value forms shared by both adapters: UUIDs in 16 bytes, digests in 32,
 * times as epoch milliseconds. Pure functions, no I/O.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The 16 bytes of a UUID string (any case); undefined when `id` is not a UUID. */
export function uuidBytes(id: string): Buffer | undefined {
  if (typeof id !== "string" || !UUID.test(id)) return undefined;
  return Buffer.from(id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24), "hex");
}

/** The 16 bytes of a UUID this process made (no check of its form: the caller vouches for it). */
export function uuidBytesOf(id: string): Buffer {
  return Buffer.from(id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24), "hex");
}

/** The lowercase UUID string of 16 bytes. */
export const uuidString: (bytes: Uint8Array) => string = idText;

/** True for a UUID string of any case. */
export function isUuidText(id: unknown): id is string {
  return typeof id === "string" && UUID.test(id);
}

/** Epoch milliseconds of an ISO 8601 time (or of a number given as is); NaN when unreadable. */
export function epochMs(t: string | number): number {
  return typeof t === "number" ? t : Date.parse(t);
}

/** ISO 8601 UTC with milliseconds, as the API shows every time. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** sha256 of the canonical JSON of `{}`: the data of a record not resolved yet. */
export const EMPTY_SHA256 = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";
