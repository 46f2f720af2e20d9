import { errors } from "../contract/errors.js";

/**
 * Normalises a `--remote` URL to the API base (docs/rest-api.md: `http://host:port/v1`). A URL
 * without a path gets `/v1` appended, so `http://127.0.0.1:8080` works too; a trailing
 * slash is dropped.
 */
export function normalizeBaseUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw errors.usage(`--remote "${input}" is not a URL; use e.g. http://127.0.0.1:8080/v1`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw errors.usage(`--remote "${input}" must be an http:// or https:// URL`);
  }
  if (url.search || url.hash) throw errors.usage(`--remote "${input}" must not carry a query or fragment`);
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path === "" ? "/v1" : path}`;
}
