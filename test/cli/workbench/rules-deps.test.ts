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
  it("the fields each rule reads, and through its computed fields what those read, down to stored fields", async () => {
    const r = await cli(box, ["rules", "deps"]);
    expect(r.stdout).toBe(
      [
        "RULE\tPATH\tREADS\tKIND\tVIA\tTHROUGH",
        "dti-limit\tLoan.dti\tLoan.dti\tcomputed\t\t",
        "dti-limit\tmonthlyDebt\tLoan.monthlyDebt\tfield\t\tLoan.dti",
        "dti-limit\tapplicants.annualIncome\tApplicant.annualIncome\tcomputed\tLoan.applicants\tLoan.dti",
        "dti-limit\temployments.monthlyIncome\tEmployment.monthlyIncome\tfield\tApplicant.employments\tLoan.dti → Applicant.annualIncome",
        "credit-floor\tLoan.amount\tLoan.amount\tfield\t\t",
        "credit-floor\tApplicant.creditScore\tApplicant.creditScore\tfield\t\t",
        "",
      ].join("\n"),
    );
    const one = await cliJson(box, ["rules", "deps", "dti-limit"]);
    expect(one.rules).toHaveLength(1);
    expect(one.rules[0]).toMatchObject({ name: "dti-limit", status: "active", reads: [{ path: "Loan.dti", kind: "computed", reads: "Loan.dti" }] });
    expect(one.rules[0].dependsOn.map((d: { reads: string; through: string[] }) => `${d.reads} [${d.through.join(", ")}]`)).toEqual([
      "Loan.dti []",
      "Loan.monthlyDebt [Loan.dti]",
      "Applicant.annualIncome [Loan.dti]",
      "Employment.monthlyIncome [Loan.dti, Applicant.annualIncome]",
    ]);
  });

  it("agrees with --field: every stored field a rule depends on finds the rule, and back", async () => {
    const all = await cliJson(box, ["rules", "deps"]);
    for (const rule of all.rules as { name: string; dependsOn: { reads: string; kind: string; through: string[] }[] }[]) {
      for (const dep of rule.dependsOn.filter((d) => d.kind === "field")) {
        const readers = (await cliJson(box, ["rules", "deps", "--field", dep.reads])).readers as { kind: string; name: string; via: string[] }[];
        expect(readers).toContainEqual(expect.objectContaining({ kind: "rule", name: rule.name, via: [...dep.through].reverse() }));
      }
    }
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
