/**
 * The lifecycles of models, contexts, rules and webhooks (docs/resources.md): which status may move
 * to which. The service refuses every other move, and every message that tells someone to
 * move something first is derived from these tables, so a hint never names a move the
 * service would refuse.
 */

/** What has a status a user moves. */
export type LifecycleKind = "model" | "context" | "rule" | "webhook";

/** Allowed moves, from → to. */
export const MOVES: Record<LifecycleKind, Record<string, readonly string[]>> = {
  model: { draft: ["active"], active: ["archived"], archived: [] },
  context: { active: ["completed"], completed: ["active", "archived"], archived: [] },
  rule: { active: ["inactive"], inactive: ["active"] },
  webhook: { enabled: ["disabled"], disabled: ["enabled"] },
};

/**
 * The statuses to move through, in order, to get from `from` to `to` (ending in `to`; empty
 * when already there), or undefined when no sequence of moves gets there.
 */
export function pathBetween(kind: LifecycleKind, from: string, to: string): string[] | undefined {
  if (from === to) return [];
  const table = MOVES[kind];
  const cameFrom = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const next of table[at] ?? []) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, at);
      if (next === to) {
        const path = [to];
        for (let s = at; s !== from; s = cameFrom.get(s)!) path.unshift(s);
        return path;
      }
      queue.push(next);
    }
  }
  return undefined;
}

/** "move it to completed, then archived": the moves of a path, as a sentence. */
export function movesText(path: string[]): string {
  return `move it to ${path.join(", then ")}`;
}

/**
 * What to do before `what` (a gerund: "deleting it", "adding evidence") can happen to a
 * resource in `status` that must be `needed` for it: the moves that get there, or, when
 * none does, that the status is for good.
 */
export function firstMoves(kind: LifecycleKind, status: string, needed: string, what: string): string {
  const path = pathBetween(kind, status, needed);
  if (path === undefined) return `${status} ${kind}s are permanent: ${what} is not possible`;
  return `${movesText(path)} before ${what}`;
}
