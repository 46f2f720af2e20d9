import { errors } from "../contract/errors.js";
import { MOVES, movesText, pathBetween, type LifecycleKind } from "../contract/lifecycle.js";

/**
 * Parses a targetStatus spelling (case-insensitive). Unknown spellings are a 400: the
 * request is malformed, not an invalid move.
 */
export function parseTargetStatus(kind: LifecycleKind, target: string): string {
  const table = MOVES[kind];
  const normal = String(target).trim().toLowerCase();
  if (!(normal in table)) {
    throw errors.invalid(`unknown ${kind} status "${target}"; use one of ${Object.keys(table).join(", ")}`);
  }
  return normal;
}

/** How to get from `from` to `to` when the direct move is not allowed (from the tables). */
function transitionHint(kind: LifecycleKind, from: string, to: string): string {
  const path = pathBetween(kind, from, to);
  if (path) return `${movesText(path.slice(0, -1))} first`;
  if ((MOVES[kind][from] ?? []).length === 0) return `${from} ${kind}s are permanent`;
  return `${kind}s never return to ${to}`;
}

/** Throws 422 invalid_transition unless `from → to` is allowed for `kind`. */
export function assertTransition(kind: LifecycleKind, from: string, to: string): void {
  if (from === to) throw errors.alreadyInState(kind, from);
  if (!MOVES[kind][from]?.includes(to)) throw errors.invalidTransition(kind, from, to, transitionHint(kind, from, to));
}
