/**
 * Declarative documents (kind Model, Rule, Context) and the plan/execute core shared by
 * `apply`, `seed` and `demo`. Commands import this lazily: it loads zod and yaml.
 */
export { applyDocuments, type ApplyResult } from "./apply-run.js";
export { loadDocuments, loadDocumentsFromText } from "./document-load.js";
export type { AnyDocument, LoadedDocument } from "./document-schema.js";
export { diffLines, renderApply, summaryLine } from "./render.js";
export { mapLimit } from "../../portable/map-limit.js";
