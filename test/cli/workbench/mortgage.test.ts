import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { expectGolden } from "../../unit/workbench/golden.js";
import { cli, cliJson, mask } from "./setup.js";

const MORTGAGE = resolve(import.meta.dirname, "../../../fixtures/mortgage");

// The bundled mortgage fixtures (the ones `ddsctl demo` shows): brennan-joint has two
// applicants scored 781 and 605 by the bureau, so min-credit-score fails on the second.
describe("the workbench on the mortgage fixtures", () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = sandbox();
    const r = await cli(box, ["seed", MORTGAGE]);
    expect(r.exitCode, r.stderr).toBe(0);
  }, 120_000);
  afterAll(() => box?.cleanup());

  it("trace of a known failing case (golden, ids and times masked)", async () => {
    const r = await cli(box, ["trace", "brennan-joint", "min-credit-score"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expectGolden("cli-mortgage-brennan-min-credit-score", mask(r.stdout));
  });

  it("--json: the deciding element and the losing applicant's lineage", async () => {
    const report = await cliJson(box, ["trace", "brennan-joint", "min-credit-score"]);
    expect(report.evaluation.outcome).toBe(false);
    expect(report.decidingPath.map((s: { path: string }) => s.path)).toEqual(["$", "all.1[1]"]);
    const [a1, a2] = report.inputs[0].sources;
    expect(a1).toMatchObject({ label: "applicantId=a1", value: 781 });
    expect(a2).toMatchObject({ label: "applicantId=a2", value: 605, sourceType: "integration", policy: "source_priority" });
  });
});
