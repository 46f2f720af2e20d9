import { v7 as uuidv7 } from "uuid";

/** A new lowercase, time-ordered UUID (version 7), as docs/rest-api.md asks for every id. */
export function newId(): string {
  return uuidv7();
}

export { isUuid } from "./uuid-shape.js";
