import { readFileSync } from "node:fs";
import { errors } from "../contract/errors.js";

/** Reads all of standard input as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Reads the `-f <path|->` request body: JSON from a file or stdin. An unreadable file or
 * malformed JSON is a usage error (exit 2): no request could be formed.
 */
export async function readBody(file: string): Promise<unknown> {
  let text: string;
  const where = file === "-" ? "stdin" : file;
  try {
    text = file === "-" ? await readStdin() : readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw errors.usage(code === "ENOENT" ? `cannot read ${where}: no such file` : `cannot read ${where}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw errors.usage(`${where} is not valid JSON: ${(err as Error).message}`);
  }
}

/** Merges a `-f` body with fields given as flags (flags win). */
export async function bodyFrom(file: string | undefined, flags: Record<string, unknown>): Promise<Record<string, unknown>> {
  const base = file ? await readBody(file) : {};
  if (base === null || typeof base !== "object" || Array.isArray(base)) {
    throw errors.usage(`the body in ${file === "-" ? "stdin" : file} must be a JSON object`);
  }
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) out[k] = v;
  return out;
}

/** Parses `key=value` pairs (values that parse as JSON are used as such). */
export function parsePairs(pairs: string[] | undefined, what: string): Record<string, unknown> | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const p of pairs) {
    const i = p.indexOf("=");
    if (i <= 0) throw errors.usage(`${what} "${p}" must look like key=value`);
    const raw = p.slice(i + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    out[p.slice(0, i)] = value;
  }
  return out;
}
