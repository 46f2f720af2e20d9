import { errors } from "../contract/errors.js";

/** Allowed lifecycle moves, from → to (the interface's tables plus docs/resources.md). */
const MODEL_MOVES: Record<string, string[]> = { draft: ["active"], active: ["archived"], archived: [] };
const CONTEXT_MOVES: Record<string, string[]> = {
  active: ["completed"],
  completed: ["active", "archived"],
  archived: [],
};
const RULE_MOVES: Record<string, string[]> = { active: ["inactive"], inactive: ["active"] };
const WEBHOOK_MOVES: Record<string, string[]> = { enabled: ["disabled"], disabled: ["enabled"] };
const MOVES: Record<Kind, Record<string, string[]>> = { model: MODEL_MOVES, context: CONTEXT_MOVES, rule: RULE_MOVES, webhook: WEBHOOK_MOVES };

/** What has a lifecycle moved by `PUT .../status/{targetStatus}`. */
type Kind = "model" | "context" | "rule" | "webhook";

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
export function parseTargetStatus(kind: Kind, target: string): string {
  const table = MOVES[kind];
  const normal = String(target).trim().toLowerCase();
  if (!(normal in table)) {
    throw errors.invalid(`unknown ${kind} status "${target}"; use one of ${Object.keys(table).join(", ")}`);
  }
  return normal;
}

/** Throws 422 invalid_transition unless `from → to` is allowed for `kind`. */
export function assertTransition(kind: Kind, from: string, to: string): void {
  const table = MOVES[kind];
  if (from === to) throw errors.alreadyInState(kind, from);
  if (!table[from]?.includes(to)) throw errors.invalidTransition(kind, from, to, HINTS[`${kind}:${from}->${to}`]);
}
