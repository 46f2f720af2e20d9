import { writeFileSync } from "node:fs";
import { errors } from "../../../contract/errors.js";
import { defineCommand } from "../../core/define-command.js";
import { reportArgs } from "../../core/shared-args.js";
import { runSuites } from "../../workbench/rules-test/rules-test.js";
import { renderTestReport, caseTraceLines } from "../../workbench/rules-test/rules-test-render.js";
import { junitXml } from "../../workbench/rules-test/junit.js";

/** `ddsctl rules test <cases-file|dir>`. */
export default defineCommand({
  command: "rules test",
  description:
    "run expected outcomes (and values of sub-expressions) against data or stored contexts, report pass/fail and branch coverage; exit 1 on a failing case",
  examples: [
    "ddsctl rules test rules/dti.cases.yaml",
    "ddsctl rules test tests/rules --threshold 100 --junit reports/rules.xml",
    "ddsctl rules test tests/rules --json",
  ],
  args: {
    cases: { type: "string", positional: true, required: true, complete: "file", description: "a cases file (JSON or YAML) or a directory of them" },
    threshold: { type: "string", placeholder: "percent", description: "exit 1 when overall branch coverage is below this percentage" },
    junit: { type: "string", placeholder: "path", complete: "file", description: "also write a JUnit XML report there (for CI)" },
    ...reportArgs,
  },
  async handler(args, ctx) {
    const flags = args;
    const { out } = ctx;
    let threshold: number | undefined;
    if (flags.threshold !== undefined) {
      threshold = Number(flags.threshold);
      if (!Number.isFinite(threshold) || threshold < 0 || threshold > 100) throw errors.usage(`--threshold ${String(flags.threshold)}: give a percentage from 0 to 100`);
    }
    // Lazy: the cases file's zod schema is built on load; every command module loads at start-up (registry.ts).
    const { loadSuites } = await import("../../workbench/rules-test/cases-file.js");
    const report = await runSuites(await loadSuites(args.cases), () => ctx.service());
    if (flags.junit !== undefined) {
      writeFileSync(String(flags.junit), junitXml(report, (c) => caseTraceLines(c)));
    }
    const { covered, total } = report.summary.coverage;
    // Compared unrounded: 99.96% must not pass a threshold of 100.
    const belowThreshold = threshold !== undefined && total > 0 && (covered / total) * 100 < threshold;
    if (out.options.json) {
      // Passing cases carry no trace: the report stays small, failing ones keep theirs.
      const suites = report.suites.map((s) => ({ ...s, cases: s.cases.map((k) => (k.passed ? { ...k, evaluation: undefined } : k)) }));
      out.json({ ...report, suites, ...(threshold !== undefined ? { threshold, thresholdMet: !belowThreshold } : {}) });
    } else {
      renderTestReport(out, report);
    }
    if (belowThreshold) out.info(out.c.red(`branch coverage ${report.summary.coverage.percent}% is below the threshold ${threshold}%`));
    if (report.summary.failed > 0 || belowThreshold) ctx.setExitCode(1);
  },
});
