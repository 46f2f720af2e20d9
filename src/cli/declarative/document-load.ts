import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, isAbsolute, join, relative } from "node:path";
import { parseAllDocuments } from "yaml";
import { DdsError, type ProblemDetail } from "../../contract/errors.js";
import { zodProblems } from "../../contract/parse.js";
import { DOCUMENT_SCHEMAS, type AnyDocument, type DocumentKind, type LoadedDocument } from "./document-schema.js";
import { pushAll } from "../../portable/arrays.js";
import { EMPTY_DOCUMENT, yamlProblem } from "../document-input.js";

const EXTENSIONS = new Set([".json", ".yaml", ".yml", ".ndjson"]);

/**
 * Kinds that `ddsctl export` writes beside the declarative ones. In an NDJSON file they are
 * skipped here (contributions load with `ddsctl import contributions`; records and
 * evaluations are read-only), so one export file feeds both commands.
 */
const EXPORT_ONLY_KINDS = new Set(["Contribution", "Record", "Evaluation"]);

/** A usage error (exit 2) listing every problem; nothing has been written yet. */
function documentError(problems: ProblemDetail[]): DdsError {
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  const e = new DdsError("invalid_request", `${first.path}: ${first.message}${more}`, problems);
  e.usage = true;
  return e;
}

/** Every *.json, *.ndjson, *.yaml and *.yml below `dir`, recursively, in sorted path order; dot-entries (.git, editor files) skipped. */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) pushAll(out, listFiles(path));
    else if (EXTENSIONS.has(extname(name).toLowerCase())) out.push(path);
  }
  return out;
}

/** The raw documents of one file: a JSON object or array, or YAML documents split on `---`. */
function rawDocuments(path: string, text: string, problems: ProblemDetail[]): unknown[] {
  if (extname(path).toLowerCase() === ".ndjson") {
    const out: unknown[] = [];
    text.split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        const value: unknown = JSON.parse(line);
        const kind = value !== null && typeof value === "object" ? (value as { kind?: unknown }).kind : undefined;
        if (typeof kind === "string" && EXPORT_ONLY_KINDS.has(kind)) return;
        out.push(value);
      } catch (err) {
        problems.push({ path: `${path}: line ${i + 1}`, message: `not valid JSON: ${(err as Error).message}` });
      }
    });
    return out;
  }
  if (extname(path).toLowerCase() === ".json") {
    try {
      const value: unknown = JSON.parse(text);
      return Array.isArray(value) ? value : [value];
    } catch (err) {
      problems.push({ path, message: `not valid JSON: ${(err as Error).message}` });
      return [];
    }
  }
  const out: unknown[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    if (doc.errors.length > 0) {
      problems.push({ path: `${path}: document ${i + 1}`, message: `not valid YAML: ${yamlProblem(doc.errors[0])}` });
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS();
    } catch (err) {
      // e.g. an alias bomb: yaml refuses to expand too many aliases.
      problems.push({ path: `${path}: document ${i + 1}`, message: `not valid YAML: ${yamlProblem(err)}` });
      return;
    }
    // An empty document (a trailing `---`) holds nothing to apply.
    if (value !== null && value !== undefined) out.push(value);
  });
  return out;
}

function isKind(kind: unknown): kind is DocumentKind {
  return typeof kind === "string" && Object.hasOwn(DOCUMENT_SCHEMAS, kind);
}

/** Validates one raw document against the schema of its kind. */
function checkDocument(raw: unknown, where: string, problems: ProblemDetail[]): AnyDocument | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    problems.push({ path: where, message: "a document must be an object with a kind" });
    return undefined;
  }
  const kind = (raw as { kind?: unknown }).kind;
  if (!isKind(kind)) {
    const got = kind === undefined ? "no kind" : `unknown kind ${JSON.stringify(kind)}`;
    problems.push({ path: where, message: `${got} (expected Model, Rule or Context)` });
    return undefined;
  }
  const parsed = DOCUMENT_SCHEMAS[kind].safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const p of zodProblems(parsed.error)) problems.push({ path: `${where}: ${kind}${p.path ? `.${p.path}` : ""}`, message: p.message });
  return undefined;
}

/**
 * Loads the declarative documents of a file or a directory (every *.json, *.yaml and *.yml
 * below it, sorted). A JSON file holds one document or an array of them; a YAML file one
 * or more documents separated by `---`. Each document is checked against its kind; a
 * name given twice for the same kind is refused. Any problem is a usage error (exit 2)
 * naming `file: document N` (1-based), and nothing is returned.
 */
export function loadDocuments(path: string, cwd = process.cwd()): LoadedDocument[] {
  return collect(path, cwd);
}

/** Loads documents from text (standard input): YAML, which JSON is a subset of. */
export function loadDocumentsFromText(text: string, name = "stdin"): LoadedDocument[] {
  return collect(name, process.cwd(), text);
}

/** A file as messages name it: relative to the working directory when inside it. */
function shownPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

/** Reads, parses and checks every document of `path` (or of `stdinText`, named `path`). */
function collect(path: string, cwd: string, stdinText?: string): LoadedDocument[] {
  let files: string[] = [path];
  if (stdinText === undefined) {
    try {
      files = statSync(path).isDirectory() ? listFiles(path) : [path];
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw documentError([{ path, message: code === "ENOENT" ? "no such file or directory" : (err as Error).message }]);
    }
  }
  if (files.length === 0) throw documentError([{ path, message: "holds no *.json, *.yaml or *.yml files" }]);
  const problems: ProblemDetail[] = [];
  const loaded: LoadedDocument[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const shown = stdinText !== undefined ? file : shownPath(file, cwd);
    let text: string;
    try {
      text = stdinText ?? readFileSync(file, "utf8");
    } catch (err) {
      problems.push({ path: shown, message: `cannot read: ${(err as Error).message}` });
      continue;
    }
    // A file with no document in it (empty, blank, only YAML comments) is a mistake, as for
    // `-f`: never "no changes". (An NDJSON export of evidence alone holds lines apply skips.)
    const before = problems.length;
    const raws = text.trim() === "" ? [] : rawDocuments(shown, text, problems);
    const yaml = ![".json", ".ndjson"].includes(extname(shown).toLowerCase());
    if (raws.length === 0 && problems.length === before && (text.trim() === "" || yaml)) problems.push({ path: shown, message: EMPTY_DOCUMENT });
    raws.forEach((raw, i) => {
      const where = `${shown}: document ${i + 1}`;
      const doc = checkDocument(raw, where, problems);
      if (!doc) return;
      const key = `${doc.kind}/${doc.name}`;
      const first = seen.get(key);
      if (first) problems.push({ path: where, message: `${key} is already declared in ${first}` });
      else seen.set(key, where);
      loaded.push({ source: where, doc });
    });
  }
  if (problems.length > 0) throw documentError(problems);
  return loaded;
}
