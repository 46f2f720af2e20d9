/**
 * The cases files of `rules test`, JSON or YAML:
 *
 * ```yaml
 * name: dti limit            # optional; default the rule's name
 * rule: dti-limit            # a saved rule (name or ruleId) …
 * # rule: {file: rules/dti.json}      … a rule document beside this file (body or bare expression)
 * # rule: {expression: {"<=": [{"var": "Loan.dti"}, 0.43]}}   … or inline
 * cases:
 *   - name: low dti passes
 *     data: {Loan.dti: 0.3}  # dotted paths (nested objects work too): evaluated offline
 *     expect: true
 *     expectValues: {"<=.0": 0.3}   # node path or var:<path> → expected value
 *   - name: the stored case
 *     context: case-1        # a stored context (id or name): evaluated by the service
 *     expect: false
 * ```
 *
 * A file holds one suite like this, or `{suites: [suite, …]}`. A directory is searched
 * recursively for `.json`, `.yaml` and `.yml` files with a top-level `cases` or `suites`
 * key (other documents there, such as rule files the suites name, are skipped).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { errors } from "../../../contract/errors.js";
import { readDocument } from "../rule-source.js";
import { CasesDocument, type Suite } from "../../../portable/workbench/rules-test/cases-schema.js";
import { pushAll } from "../../../portable/arrays.js";

/** A suite with the file it came from. */
export interface LoadedSuite extends Suite {
  file: string;
  /** Position in its file (0 for a single-suite file). */
  index: number;
}

const isCasesDocument = (doc: unknown) =>
  typeof doc === "object" && doc !== null && !Array.isArray(doc) && ("cases" in doc || "suites" in doc);

function casesFilesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return casesFilesUnder(path);
      return /\.(json|ya?ml)$/i.test(name) ? [path] : [];
    });
}

function parseSuites(doc: unknown, file: string): LoadedSuite[] {
  const parsed = CasesDocument.safeParse(doc);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(document)"}: ${i.message}`);
    throw errors.usage(`${file} is not a valid cases file: ${problems.join("; ")}`);
  }
  const suites = "suites" in parsed.data ? parsed.data.suites : [parsed.data];
  return suites.map((s, index) => ({ ...s, file, index }));
}

/** Loads every suite of a cases file or directory (see the module comment). */
export async function loadSuites(path: string): Promise<LoadedSuite[]> {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw errors.usage(`cannot read ${path}: no such file or directory`);
  }
  if (!isDir) return parseSuites(await readDocument(undefined, path), path);
  const suites: LoadedSuite[] = [];
  for (const file of casesFilesUnder(path)) {
    const doc = await readDocument(undefined, file);
    if (isCasesDocument(doc)) pushAll(suites, parseSuites(doc, file));
  }
  if (suites.length === 0) throw errors.usage(`${path} holds no cases files (JSON/YAML documents with a cases or suites key)`);
  return suites;
}
