/** The contract's zod schemas, as one module. */
export type RequestSchemas = typeof import("../contract/schemas/index.js");

let loading: Promise<RequestSchemas> | undefined;
let loaded: RequestSchemas | undefined;

/**
 * The contract's schemas, for checking a request body. Lazy: zod and the schemas take
 * ~13 ms to set up, which a command that only reads never needs; the first write pays it once.
 */
export function requestSchemas(): Promise<RequestSchemas> {
  return (loading ??= import("../contract/schemas/index.js").then((m) => (loaded = m)));
}

/** The schemas, for synchronous code that runs only after an `await requestSchemas()`. */
export function loadedSchemas(): RequestSchemas {
  if (!loaded) throw new Error("request schemas used before requestSchemas() loaded them");
  return loaded;
}
