import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(path) ? [path] : [];
  });
}

/** Every spread argument of a call (`f(...xs)`, `new X(...xs)`) in the code that ships. */
function spreadCalls(): { at: string; code: string; explained: boolean }[] {
  const found: { at: string; code: string; explained: boolean }[] = [];
  for (const path of [...files(join(ROOT, "src")), ...files(join(ROOT, "web/src"))]) {
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n");
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const visit = (node: ts.Node): void => {
      if (ts.isSpreadElement(node) && (ts.isCallExpression(node.parent) || ts.isNewExpression(node.parent))) {
        const line = source.getLineAndCharacterOfPosition(node.parent.getStart()).line;
        found.push({ at: `${relative(ROOT, path)}:${line + 1}`, code: node.parent.getText().split("\n")[0], explained: line > 0 && /^\s*\/\/ Spread: \S/.test(lines[line - 1]) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/**
 * No array is spread into a call unless the line above says why it is bounded (`//
 * Spread: <why>`): `a.push(...b)` and `Math.max(...b)` put every element on the stack, and
 * a list, a file or a context's records overflow it ("Maximum call stack size exceeded").
 * src/portable/arrays.ts has the loops to use instead.
 */
describe("spreads into calls", () => {
  const found = spreadCalls();

  it("each that remains says why it is bounded", () => {
    expect(found.filter((f) => !f.explained)).toEqual([]);
  });

  it("finds spreads in calls (the check is not vacuous)", () => {
    expect(found.length).toBeGreaterThan(0);
    const probe = ts.createSourceFile("probe.ts", "out.push(...rows); new Set(...xs);", ts.ScriptTarget.Latest, true);
    const spreads: string[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isSpreadElement(n)) spreads.push(n.getText());
      ts.forEachChild(n, visit);
    };
    visit(probe);
    expect(spreads).toEqual(["...rows", "...xs"]);
  });
});
