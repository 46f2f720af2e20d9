/**
 * Saved points in time of an evaluation, for `trace diff` in the page: the same document
 * `ddsctl trace --json` writes, kept in this browser's storage.
 */
import type { TraceReport } from "../../../src/portable/workbench/trace/trace-report.js";

const STORAGE = "ddsctl-studio-snapshots";
/** Snapshots kept at most (the oldest are dropped). */
const MAX = 50;

/** One saved evaluation. */
export interface Snapshot {
  id: string;
  savedAt: string;
  contextId: string;
  ruleId: string;
  report: Pick<TraceReport, "evaluation">;
}

function all(): Snapshot[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE) ?? "[]");
    return Array.isArray(parsed) ? (parsed as Snapshot[]) : [];
  } catch {
    return [];
  }
}

/** The snapshots of one rule in one context, newest first. */
export function snapshotsOf(contextId: string, ruleId: string): Snapshot[] {
  return all()
    .filter((s) => s.contextId === contextId && s.ruleId === ruleId)
    .sort((a, b) => b.savedAt.localeCompare(a.savedAt));
}

/** Saves one. */
export function saveSnapshot(contextId: string, ruleId: string, report: Snapshot["report"]): Snapshot {
  const savedAt = new Date().toISOString();
  const snapshot = { id: savedAt, savedAt, contextId, ruleId, report };
  localStorage.setItem(STORAGE, JSON.stringify([...all(), snapshot].slice(-MAX)));
  return snapshot;
}
