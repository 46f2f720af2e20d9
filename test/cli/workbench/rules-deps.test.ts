import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox, type Sandbox } from "../../helpers/cli.js";
import { cli, cliJson, createModels, createRules } from "./setup.js";

let box: Sandbox;
beforeAll(async () => {
  box = sandbox();
  await createModels(box);
  await createRules(box, ["dti-limit", "credit-floor"]);
});
afterAll(() => box.cleanup());

describe("ddsctl rules deps", () => {
  it("the fields each rule reads", async () => {
    const r = await cli(box, ["rules", "deps"]);
    expect(r.stdout).toBe(
      [
        "RULE\tPATH\tREADS\tKIND\tVIA",
        "dti-limit\tLoan.dti\tLoan.dti\tcomputed\t",
        "credit-floor\tLoan.amount\tLoan.amount\tfield\t",
        "credit-floor\tApplicant.creditScore\tApplicant.creditScore\tfield\t",
        "",
      ].join("\n"),
    );
    const one = await cliJson(box, ["rules", "deps", "dti-limit"]);
    expect(one.rules).toEqual([{ ruleId: expect.any(String), name: "dti-limit", status: "active", reads: [{ path: "Loan.dti", kind: "computed", reads: "Loan.dti" }] }]);
  });

  it("--field: rules and computed fields reading it, through computed fields", async () => {
    const r = await cliJson(box, ["rules", "deps", "--field", "Employment.monthlyIncome"]);
    expect(r.readers.map((x: { kind: string; name: string; via: string[] }) => `${x.kind} ${x.name} via [${x.via.join(", ")}]`)).toEqual([
      "computed Applicant.annualIncome via []",
      "computed Loan.dti via [Applicant.annualIncome]",
      "rule dti-limit via [Applicant.annualIncome, Loan.dti]",
    ]);
    expect((await cli(box, ["rules", "deps", "--field", "Loan.nope"])).exitCode).toBe(4);
  });
});
