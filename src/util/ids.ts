import { v7 as uuidv7 } from "uuid";

/** A new lowercase, time-ordered UUID (version 7), as SPEC.md §2 asks for every id. */
export function newId(): string {
  return uuidv7();
}

export { isUuid } from "./uuid-shape.js";
