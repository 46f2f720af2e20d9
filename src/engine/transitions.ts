import { errors } from "../contract/errors.js";

/** Allowed lifecycle moves, from → to (the interface's tables plus docs/resources.md). */
const MODEL_MOVES: Record<string, string[]> = { draft: ["active"], active: ["archived"], archived: [] };
const CONTEXT_MOVES: Record<string, string[]> = {
  active: ["completed"],
  completed: ["active", "archived"],
  archived: [],
};
const RULE_MOVES: Record<string, string[]> = { active: ["inactive"], inactive: ["active"] };

const HINTS: Record<string, string> = {
  "context:active->archived": "complete the context first",
  "model:archived->draft": "archived models are permanent",
  "model:draft->archived": "activate the model first",
  "context:archived->active": "archived contexts are permanent",
};

/**
 * Parses a targetStatus spelling (case-insensitive). Unknown spellings are a 400: the
 * request is malformed, not an invalid move.
 */
export function parseTargetStatus(kind: "model" | "context" | "rule", target: string): string {
  const table = kind === "model" ? MODEL_MOVES : kind === "context" ? CONTEXT_MOVES : RULE_MOVES;
  const normal = String(target).trim().toLowerCase();
  if (!(normal in table)) {
    throw errors.invalid(`unknown ${kind} status "${target}"; use one of ${Object.keys(table).join(", ")}`);
  }
  return normal;
}

/** Throws 422 invalid_transition unless `from → to` is allowed for `kind`. */
export function assertTransition(kind: "model" | "context" | "rule", from: string, to: string): void {
  const table = kind === "model" ? MODEL_MOVES : kind === "context" ? CONTEXT_MOVES : RULE_MOVES;
  if (from === to) throw errors.alreadyInState(kind, from);
  if (!table[from]?.includes(to)) throw errors.invalidTransition(kind, from, to, HINTS[`${kind}:${from}->${to}`]);
}
