/**
 * The pure stages of a resolution pass (docs/pipeline.md): plain data in, plain data out, no
 * database. `runPass` composes them; the others are exported for tests, `rules eval`
 * and `records explain`.
 */
export type { Candidate } from "../../../portable/resolution/candidate.js";
export { compareByTieBreak } from "../../../portable/resolution/candidate.js";
export { resolveField, type FieldResolutionResult } from "../../../portable/resolution/resolve-field.js";
export { resolveRecords, type ResolvedFields } from "./resolve-records.js";
export { validateValues } from "./validate-values.js";
export { linkRecords } from "./link-records.js";
export { computeFields, computedLineage } from "./compute-fields.js";
export { computedFieldOrder, type ComputedNode, type ComputedOrder } from "./computed-order.js";
export { buildRecordData } from "./record-data.js";
export { canonicalJson, toJsonValue } from "../../../portable/resolution/canonical-json.js";
export { sha256Of } from "./record-hash.js";
export { createContextResolver } from "./context-resolver.js";
export { createRecordResolver } from "./record-resolver.js";
export { evaluateRules } from "./evaluate-rules.js";
export { ExpressionCache, sharedExpressionCache, type CompileOutcome } from "./expression-cache.js";
export { runPass, type RunPassOptions } from "./run-pass.js";
export type { RecordValues } from "./record-order.js";
