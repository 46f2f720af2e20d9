import { errors } from "../../../contract/errors.js";
import type { BooleanArg, StringArg } from "../../core/args.js";
import type { ExplainMode } from "../../workbench/trace/render-trace.js";

/** `--explain`, `--paths` and `--no-lineage` of `trace` and `rules eval`. */
export function explainArgs(fallback: ExplainMode) {
  return {
    explain: {
      type: "string",
      placeholder: "mode",
      default: fallback,
      description: "full (every node), fails (the deciding path and failures, passed siblings counted) or auto (full for trees up to 30 nodes)",
    } satisfies StringArg,
    paths: { type: "boolean", description: "show each node's path (what rules test expectValues name)" } satisfies BooleanArg,
    lineage: { type: "boolean", negatable: true, description: "skip joining inputs to record lineage" } satisfies BooleanArg,
  };
}

/** Parses `--explain`. */
export function parseExplainMode(value: string): ExplainMode {
  if (value !== "full" && value !== "fails" && value !== "auto") throw errors.usage(`--explain ${value}: use full, fails or auto`);
  return value;
}
