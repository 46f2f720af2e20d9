/**
 * Compiled JSON Logic kept across passes: compiling is the expensive part of evaluating a
 * rule, and the same rules and computed fields run in every pass of every context.
 */
import { compileExpression, type CompiledExpression } from "../../../portable/json-logic/index.js";

/** A compiled expression, or the message of why it does not compile. */
export type CompileOutcome = { compiled: CompiledExpression } | { error: string };

/** The JSON text an expression is recognised by (a unique text if it has none). */
function sourceText(expression: unknown): string {
  try {
    return JSON.stringify(expression) ?? "undefined";
  } catch {
    // Not JSON (a cycle, a bigint): cannot come from the store; never match a cached entry.
    return `\u0000${Math.random()}`;
  }
}

/** A small least-recently-used cache of compiled expressions. */
export class ExpressionCache {
  private readonly entries = new Map<string, { expression: unknown; source: string; outcome: CompileOutcome }>();

  /** @param capacity how many compiled expressions to keep. */
  constructor(private readonly capacity = 500) {}

  /**
   * The compiled form of `expression`, stored under `key` (a rule's id and version, a
   * field's id and model version). The expression text is checked too, so a key reused
   * for a different expression (a draft evaluated under a placeholder id) recompiles
   * instead of running stale logic. Expressions are treated as immutable: the same object
   * is taken to hold the same expression. Never throws.
   */
  get(key: string, expression: unknown): CompileOutcome {
    const hit = this.entries.get(key);
    // The same object is the same expression; JSON text decides for freshly loaded copies.
    const source = hit !== undefined && hit.expression === expression ? hit.source : sourceText(expression);
    if (hit && hit.source === source) {
      // Re-insert so Map order tracks recency.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.outcome;
    }
    let outcome: CompileOutcome;
    try {
      outcome = { compiled: compileExpression(expression) };
    } catch (error) {
      outcome = { error: error instanceof Error ? error.message : String(error) };
    }
    this.entries.delete(key);
    this.entries.set(key, { expression, source, outcome });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return outcome;
  }

  /** How many expressions are cached (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

/** The cache runPass uses unless it is given one. */
export const sharedExpressionCache = new ExpressionCache();
