import { v7 as uuidv7 } from "uuid";

/** A new lowercase, time-ordered UUID (version 7), as SPEC.md §2 asks for every id. */
export function newId(): string {
  return uuidv7();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` looks like a UUID of any version (ids are compared lowercase). */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
