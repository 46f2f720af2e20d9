export { normalizeBaseUrl } from "./base-url.js";
export { createHttpClient, type HttpClientOptions } from "./http-client.js";
export type { RetryNotice } from "./transport.js";
