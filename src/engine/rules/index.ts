/**
 * The JSON Logic engine as the pipeline's stages import it. The engine itself lives in
 * the portable layer (`src/portable/json-logic/`), where the CLI, the engine and the
 * studio's page share it; this path stays only because the stages under
 * `engine/pipeline/` still import it here. When they import the portable layer directly,
 * delete this file.
 */
export { compileExpression, isTruthy } from "../../portable/json-logic/index.js";
export type { CompiledExpression, VarResolver } from "../../portable/json-logic/index.js";
