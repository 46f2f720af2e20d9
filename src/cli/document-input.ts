import { readFileSync } from "node:fs";
import { errors } from "../contract/errors.js";
import type { Model } from "../contract/schemas/index.js";
import type { CliIO } from "./core/io.js";

/** Reads all of standard input as text. */
export async function readStdin(io: CliIO): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** What a file that holds no document is told (after its name): every reader of documents says it so. */
export const EMPTY_DOCUMENT = "is empty: give a JSON or YAML document";

/**
 * Why YAML text does not parse: the parser's message whole, with the lines around the
 * place and the caret under it (`… at line 4, column 1:` then the snippet), as every
 * reader of documents (`-f`, `apply`, `seed`) shows it.
 */
export function yamlProblem(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).trimEnd();
}

/**
 * The text of a document file. Unreadable is a usage error (exit 2): no request could be
 * formed. `-f`, `apply` and `seed` read files through here.
 */
export function readDocumentFile(path: string, where = path): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw errors.usage(code === "ENOENT" ? `cannot read ${where}: no such file` : `cannot read ${where}: ${(err as Error).message}`);
  }
}

/**
 * Parses a document that is JSON or YAML. JSON is tried first (it is most bodies, and its
 * own parser is exact about numbers and duplicate keys); YAML, loaded only then, reads the
 * rest. Text that is neither is a usage error quoting the parser that fits its look.
 */
export async function parseDocument(text: string, where: string): Promise<unknown> {
  if (text.trim() === "") throw errors.usage(`${where} ${EMPTY_DOCUMENT}`);
  let jsonProblem: string;
  try {
    return JSON.parse(text);
  } catch (err) {
    jsonProblem = (err as Error).message;
  }
  // Lazy: yaml is a side bundle (scripts/bundle.mjs), required only for a document that is not JSON.
  const { parse } = await import("yaml");
  try {
    return parse(text) as unknown;
  } catch (err) {
    throw errors.usage(`${where} is neither JSON nor YAML: ${/^\s*[[{]/.test(text) ? jsonProblem : yamlProblem(err)}`);
  }
}

/**
 * Reads a `-f <path|->` document: JSON or YAML, from a file or stdin. Every `-f` reads
 * through here. An unreadable file or text that is neither is a usage error (exit 2): no
 * request could be formed.
 */
export async function readBody(io: CliIO | undefined, file: string): Promise<unknown> {
  const where = file === "-" ? "stdin" : file;
  // Callers without a stdin to offer (a cases file named "-") read nothing there.
  const text = file === "-" ? (io ? await readStdin(io) : "") : readDocumentFile(file);
  return parseDocument(text, where);
}

/** Merges a `-f` body with fields given as flags (flags win). */
export async function bodyFrom(io: CliIO, file: string | undefined, flags: Record<string, unknown>): Promise<Record<string, unknown>> {
  const base = file ? await readBody(io, file) : {};
  if (base === null || typeof base !== "object" || Array.isArray(base)) {
    throw errors.usage(`the body in ${file === "-" ? "stdin" : file} must be an object (JSON or YAML)`);
  }
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) out[k] = v;
  return out;
}

/** Field types whose values are text: `applicantId=123` means the string "123" there. */
const TEXT_TYPES = new Set(["string", "enum", "date", "datetime"]);

/** The type of each field of a model, for `parsePairs`. */
export function fieldTypes(model: Pick<Model, "fields">): Map<string, string> {
  return new Map(model.fields.map((f) => [f.name, f.type]));
}

/**
 * Parses `key=value` pairs. Values that parse as JSON are used as such (`amount=250000` is
 * a number), except for a field whose type is text (`types`), where the value is kept as
 * written, so `--data applicantId=123` works on a string field.
 */
export function parsePairs(pairs: string[], what: string, types?: Map<string, string>): Record<string, unknown> | undefined {
  if (pairs.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const p of pairs) {
    const i = p.indexOf("=");
    if (i <= 0) throw errors.usage(`${what} "${p}" must look like key=value`);
    const key = p.slice(0, i);
    const raw = p.slice(i + 1);
    let value: unknown = raw;
    if (!TEXT_TYPES.has(types?.get(key) ?? "")) {
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw;
      }
    }
    out[key] = value;
  }
  return out;
}
