/**
 * Hints that move something through its lifecycle name the exact commands, derived from
 * the service's own table of allowed moves (contract/lifecycle.ts), so following a hint
 * always works: an active context to delete is completed, then archived, never archived
 * at once (which the service refuses).
 */
import { DdsError, isDdsError, type ErrorCode } from "../../contract/errors.js";
import { pathBetween, type LifecycleKind } from "../../contract/lifecycle.js";
import { ddsctlCommand } from "./shell-quote.js";
import { bareRef } from "../../portable/names/resolve-ref.js";

const GROUP: Record<LifecycleKind, string> = { model: "models", context: "contexts", rule: "rules", webhook: "webhooks" };

/**
 * The commands that take `ref` from `status` to `target` (`ddsctl contexts status case-1
 * completed && …`), or undefined when no sequence of moves gets there.
 */
export function statusCommands(kind: LifecycleKind, ref: string, status: string, target: string): string | undefined {
  const path = pathBetween(kind, status, target);
  if (!path || path.length === 0) return undefined;
  // A webhook moves by `webhooks enable|disable`, the others by `<group> status`.
  return path.map((to) => ddsctlCommand(kind === "webhook" ? [GROUP[kind], to === "enabled" ? "enable" : "disable", ref] : [GROUP[kind], "status", ref, to])).join(" && ");
}

/** What a refusal needs: the status the resource must reach, and the codes that say it has not. */
export interface LifecycleNeed {
  kind: LifecycleKind;
  /** The name or id the user typed (the commands repeat it). */
  ref: string;
  /** The id it resolved to: the service's message names that, the CLI's says `ref` instead. */
  id?: string;
  /** The status the change needs (`archived` to delete, the target of a status move). */
  target: string;
  codes: ErrorCode[];
  /** The resource's status now (asked only when the service refused). */
  status(): Promise<string>;
}

/** The need of a status move to `target`: refused as `invalid_transition` when a step is missing. */
export function moveNeed(kind: LifecycleKind, ref: string, id: string, target: string, status: () => Promise<string>): LifecycleNeed {
  return { kind, ref, id, target: target.trim().toLowerCase(), codes: ["invalid_transition"], status };
}

/** The need of evidence for a context (a contribution, a record change): an active context, refused as `context_not_active`. */
export function evidenceNeed(ref: string, id: string, context: () => Promise<{ status: string }>): LifecycleNeed {
  return { kind: "context", ref, id, target: "active", codes: ["context_not_active"], status: async () => (await context()).status };
}

/**
 * Runs a change; when the service refuses it for the resource's status, the error names
 * the resource as the user did (`context okafor-purchase is completed`, where the service
 * says its id) and gains the commands that get it to the status the change needs.
 */
export async function withStatusCommands<T>(need: LifecycleNeed, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!isDdsError(err) || !need.codes.includes(err.code)) throw err;
    const commands = statusCommands(need.kind, need.ref, await need.status().catch(() => ""), need.target);
    const message = need.id === undefined ? err.message : err.message.split(`${need.kind} ${need.id}`).join(`${need.kind} ${bareRef(need.kind, need.ref)}`);
    if (!commands && message === err.message) throw err;
    throw new DdsError(err.code, commands ? `${message} (run: ${commands})` : message, err.errors);
  }
}

/**
 * How a stale context comes up to date: an active one by a pipeline run, a completed one
 * once reopened, an archived one never (archiving is for good).
 */
export function freshenHint(ref: string, status: string): string {
  const run = ddsctlCommand(["pipeline", "run", ref]);
  if (status === "active") return `${run} brings it up to date`;
  const reopen = statusCommands("context", ref, status, "active");
  return reopen ? `the pipeline only processes active contexts: ${reopen} && ${run}` : `${status} contexts are permanent: it stays as it is`;
}
