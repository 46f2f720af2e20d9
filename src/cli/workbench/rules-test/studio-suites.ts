/**
 * The `rules test` suites `ddsctl studio --tests` hands to the page: each with the rule it
 * tests named (a saved rule's name or id, or the name of the rule file it points to), so
 * the rule view can run a rule's own tests against the draft being edited.
 */
import { basename, dirname, extname, resolve } from "node:path";
import type { StudioSuite } from "../../../portable/workbench/rules-test/studio-suite.js";
import { loadSuites } from "./cases-file.js";
import { readRuleSource } from "../rule-source.js";

/** Loads the cases files at `path` (a file or directory), as `rules test` does. */
export async function suitesForStudio(path: string): Promise<StudioSuite[]> {
  const out: StudioSuite[] = [];
  for (const s of await loadSuites(path)) {
    let rule: string | null = null;
    if (typeof s.rule === "string") rule = s.rule;
    else if ("file" in s.rule) {
      const file = resolve(dirname(s.file), s.rule.file);
      rule = (await readRuleSource(undefined, file)).name ?? basename(file, extname(file));
    }
    out.push({ name: s.name ?? rule ?? `${basename(s.file)}#${s.index}`, file: s.file, rule, cases: s.cases });
  }
  return out;
}
