/**
 * Rule and data documents the workbench reads: JSON or YAML (YAML 1.2 reads JSON too),
 * from a file or stdin. A rule document is either a rule body as `POST /rules` takes it
 * (it has an `expression` key) or a bare JSON Logic expression.
 */
import { errors } from "../../contract/errors.js";
import { readBody } from "../document-input.js";
import type { CliIO } from "../core/io.js";

/** A rule read from a document. */
export interface RuleSource {
  expression: unknown;
  /** The body's `name`, when the document is a rule body that has one. */
  name?: string;
  /** The body's `contextTypes`, when it has them: the contexts the rule applies to. */
  contextTypes?: string[];
}

/**
 * Reads and parses a JSON or YAML document (`-` reads stdin, where the caller has one)
 * through the reader every `-f` uses; problems are usage errors.
 */
export async function readDocument(io: CliIO | undefined, file: string): Promise<unknown> {
  return readBody(io, file);
}

/** True when a parsed document is a rule body rather than a bare expression. */
export function isRuleBody(doc: unknown): doc is { expression: unknown; name?: unknown; contextTypes?: unknown } {
  return typeof doc === "object" && doc !== null && !Array.isArray(doc) && Object.prototype.hasOwnProperty.call(doc, "expression");
}

/** The rule a parsed document holds (see the module comment). */
export function ruleFromDocument(doc: unknown): RuleSource {
  if (!isRuleBody(doc)) return { expression: doc };
  const rule: RuleSource = { expression: doc.expression };
  if (typeof doc.name === "string") rule.name = doc.name;
  if (Array.isArray(doc.contextTypes) && doc.contextTypes.every((t) => typeof t === "string")) rule.contextTypes = doc.contextTypes as string[];
  return rule;
}

/** Reads a rule document. */
export async function readRuleSource(io: CliIO | undefined, file: string): Promise<RuleSource> {
  return ruleFromDocument(await readDocument(io, file));
}

/** Reads a data document: a JSON/YAML object of dotted paths (nested objects work too). */
export async function readDataDocument(io: CliIO, file: string): Promise<Record<string, unknown>> {
  const doc = await readDocument(io, file);
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw errors.usage(`${file} must hold an object of dotted paths, e.g. {"Loan.amount": 250000}`);
  return doc as Record<string, unknown>;
}
