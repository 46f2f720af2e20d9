// A case of 2,000 records for the studio's graph (the browser test and `npm run bench`):
// one Loan and one Property, 999 applicants each with one employment, on the demo's
// mortgage models, written as an NDJSON file for `ddsctl import contributions`.
// Plain JavaScript so the benchmark (node, no TypeScript) and the tests share it.
import { writeFileSync } from "node:fs";

/** The case's name. */
export const LARGE_CASE = "large-case";

/** Writes the contributions of a case of `records` records (even, at least 4) to `file`. */
export function writeLargeCase(file, records = 2000) {
  const applicants = (records - 2) / 2;
  const base = { contextRef: LARGE_CASE, sourceType: "document" };
  const lines = [
    { ...base, modelName: "Loan", sourceId: "form", data: { amount: 300000, termMonths: 360, purpose: "purchase", applicationDate: "2026-03-09", purchasePrice: 330000, monthlyDebt: 2100 } },
    { ...base, modelName: "Property", sourceId: "appraisal", data: { address: "1 Large Lane", propertyType: "single_family", appraisedValue: 340000 } },
  ];
  for (let i = 0; i < applicants; i++) {
    const applicantId = `a${i}`;
    lines.push({ ...base, modelName: "Applicant", sourceId: `form-${applicantId}`, data: { applicantId, fullName: `Applicant ${i}`, dateOfBirth: "1985-05-05", creditScore: 700, employmentStatus: "employed", statedAnnualIncome: 60000 } });
    lines.push({ ...base, modelName: "Employment", sourceId: `payslip-${applicantId}`, data: { employmentId: `e${i}`, applicantId, employer: "Acme", startDate: "2015-01-01", monthlyIncome: 5000 } });
  }
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
}
