import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { expect } from "vitest";
import { ddsctl, type RunResult, type Sandbox } from "../../helpers/cli.js";

/** The bundled fixture set, as `apply`, `seed` and `demo` read it. */
export const FIXTURES = resolve(import.meta.dirname, "../../../fixtures/mortgage");

/** Writes a document file into the sandbox and returns its path. */
export function writeDoc(box: Sandbox, name: string, text: string): string {
  const path = join(box.dir, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Runs and asserts the exit code, showing stderr when it differs. */
export async function expectExit(box: Sandbox, args: string[], code: number, options: { input?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
  const r = await ddsctl(box, args, options);
  expect(r.exitCode, `ddsctl ${args.join(" ")}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(code);
  expect(r.stderr, "no stack traces").not.toMatch(/^ {4}at /m);
  return r;
}

/** A small, self-contained document set: one model and one rule. */
export const PET_MODEL = `kind: Model
name: Pet
identity: [petId]
fields:
  - { name: petId, type: string, required: true }
  - { name: weight, type: number, validation: { min: 0 } }
`;

/** A rule over PET_MODEL; `limit` varies it. */
export function petRule(limit = 40, severity = "low"): string {
  return `kind: Rule
name: pet-weight
category: data_quality
severity: ${severity}
expression: { all: [{ var: Pet.weight }, { "<=": [{ var: "" }, ${limit}] }] }
`;
}
