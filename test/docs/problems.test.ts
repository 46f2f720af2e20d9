/**
 * docs/problems.md lists every problem type ddsctl answers with: each code of the contract
 * (src/contract/errors.ts) and each problem the server builds itself (405, 408, 431, 499),
 * with its status, and nothing else. A new code without its row fails here.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DdsError, ERROR_STATUSES, type ErrorCode } from "../../src/contract/errors.js";

const ROOT = join(import.meta.dirname, "../..");
const DOC = readFileSync(join(ROOT, "docs/problems.md"), "utf8");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** `code → status` of every problem the code base can answer with. */
function problemsInCode(): Map<string, number> {
  const found = new Map<string, number>(Object.entries(ERROR_STATUSES));
  for (const path of files(join(ROOT, "src/server"))) {
    const text = readFileSync(path, "utf8");
    for (const m of text.matchAll(/type: "https:\/\/ddsctl\.dev\/problems\/([a-z-]+)",[^}]*?status: (\d{3})/gs)) found.set(m[1].replace(/-/g, "_"), Number(m[2]));
    for (const m of text.matchAll(/problem\((\d{3}), "([a-z_]+)"/g)) found.set(m[2], Number(m[1]));
  }
  return found;
}

/** The rows of the table: type slug, status, code. */
function rows(): { slug: string; status: number; code: string; meaning: string }[] {
  return [...DOC.matchAll(/^\| `([a-z-]+)` \| (\d{3}) \| `([a-z_]+)` \| ([^|]+) \|/gm)].map((m) => ({ slug: m[1], status: Number(m[2]), code: m[3], meaning: m[4].trim() }));
}

describe("docs/problems.md", () => {
  it("has one row per problem type the code answers with, with its status", () => {
    const inCode = problemsInCode();
    expect(inCode.size).toBeGreaterThanOrEqual(24);
    const documented = new Map(rows().map((r) => [r.code, r.status]));
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(inCode));
  });

  it("each row's type is the code with dashes, as the error's problem body spells it, and says what it means", () => {
    for (const r of rows()) {
      expect(r.slug).toBe(r.code.replace(/_/g, "-"));
      expect(r.meaning.length).toBeGreaterThan(20);
      if (r.code in ERROR_STATUSES) expect(new DdsError(r.code as ErrorCode, "x").toProblem().type).toBe(`https://ddsctl.dev/problems/${r.slug}`);
    }
  });

  it("is linked from the REST API's and the CLI's error sections", () => {
    for (const doc of ["docs/rest-api.md", "docs/cli.md"]) expect(readFileSync(join(ROOT, doc), "utf8")).toContain("(problems.md)");
  });
});
