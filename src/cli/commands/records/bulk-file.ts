import { errors } from "../../../contract/errors.js";
import { readBody } from "../../document-input.js";
import type { CliIO } from "../../core/io.js";

/**
 * The items of a bulk body: `{"items": [...]}` as the REST API takes it, or a bare JSON
 * array (wrapped for the caller). Undefined when the body is neither.
 */
export function bulkItemsOf(body: unknown): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (body !== null && typeof body === "object" && Array.isArray((body as { items?: unknown }).items)) {
    return (body as { items: unknown[] }).items;
  }
  return undefined;
}

/** Reads a `--bulk -f <path|->` file; anything but items is a usage error. */
export async function readBulkItems(io: CliIO, file: string | undefined): Promise<unknown[]> {
  if (!file) throw errors.usage("--bulk needs -f <path|-> holding {\"items\": [...]} or a JSON array");
  const items = bulkItemsOf(await readBody(io, file));
  if (!items) throw errors.usage(`${file === "-" ? "stdin" : file} must hold {"items": [...]} or a JSON array of items`);
  return items;
}
