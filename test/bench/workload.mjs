// Deterministic workload shared by the benchmarks: 3 models, 10 rules, N contributions
// spread over C contexts. Seeded so every run measures the same rows.

/** A tiny deterministic PRNG (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const MODELS = [
  {
    name: "Employment",
    identity: ["employmentId"],
    fields: [
      { name: "employmentId", type: "string" },
      { name: "applicantId", type: "string" },
      { name: "monthlyIncome", type: "number", resolution: { policy: "latest" } },
    ],
  },
  {
    name: "Applicant",
    identity: ["applicantId"],
    fields: [
      { name: "applicantId", type: "string" },
      { name: "creditScore", type: "integer", resolution: { policy: "source_priority", sourcePriority: ["integration", "document"] } },
      { name: "annualIncome", type: "number", computed: { expression: { "*": [{ sum: [{ var: "employments.monthlyIncome" }] }, 12] } } },
    ],
    relationships: [{ name: "employments", target: "Employment", cardinality: "many", match: { sourceField: "applicantId", targetField: "applicantId" } }],
  },
  {
    name: "Loan",
    fields: [
      { name: "amount", type: "number" },
      { name: "propertyValue", type: "number", resolution: { policy: "max" } },
      { name: "monthlyDebt", type: "number", resolution: { policy: "majority" } },
      { name: "ltv", type: "number", computed: { expression: { "/": [{ var: "amount" }, { var: "propertyValue" }] } } },
      { name: "dti", type: "number", computed: { expression: { "/": [{ var: "monthlyDebt" }, { "/": [{ sum: [{ var: "applicants.annualIncome" }] }, 12] }] } } },
    ],
    relationships: [{ name: "applicants", target: "Applicant", cardinality: "many" }],
  },
];

const cat = ["eligibility", "affordability", "credit", "fraud", "compliance", "data_quality"];
const sev = ["low", "medium", "high", "critical"];
const bodies = [
  { "<=": [{ var: "Loan.dti" }, 0.43] },
  { "<=": [{ var: "Loan.ltv" }, 0.8] },
  { all: [{ var: "Applicant.creditScore" }, { ">=": [{ var: "" }, 620] }] },
  { ">=": [{ var: "Loan.amount" }, 50000] },
  { and: [{ ">": [{ var: "Loan.propertyValue" }, 0] }, { "<": [{ var: "Loan.amount" }, { var: "Loan.propertyValue" }] }] },
  { some: [{ var: "Applicant.annualIncome" }, { ">": [{ var: "" }, 40000] }] },
  { "<=": [{ count: [{ var: "Applicant.applicantId" }] }, 4] },
  { if: [{ ">": [{ var: "Loan.amount" }, 500000] }, { "<=": [{ var: "Loan.ltv" }, 0.7] }, true] },
  { "!": [{ missing: ["Loan.amount", "Loan.propertyValue"] }] },
  { or: [{ "<": [{ var: "Loan.monthlyDebt" }, 3000] }, { ">=": [{ min: [{ var: "Applicant.creditScore" }] }, 700] }] },
];
export const RULES = bodies.map((expression, i) => ({ name: `rule-${i}`, category: cat[i % cat.length], severity: sev[i % sev.length], expression }));

/**
 * Yields `total` contribution bodies over `contexts` contexts (ids from `contextIds`),
 * about 100 per context: one loan, two applicants, two employments, several sources each.
 */
export function* contributions(total, contextIds, modelIds, seed = 7) {
  const r = rng(seed);
  const per = Math.ceil(total / contextIds.length);
  let n = 0;
  for (const contextId of contextIds) {
    for (let i = 0; i < per && n < total; i++, n++) {
      const k = i % 10;
      const src = `src-${i % 7}`;
      const conf = Math.round(r() * 100) / 100;
      if (k < 3) {
        yield { contextId, modelId: modelIds.Loan, sourceId: src, sourceType: k === 0 ? "document" : "integration", data: { amount: 100000 + Math.floor(r() * 400000), propertyValue: 200000 + Math.floor(r() * 500000), monthlyDebt: 500 + Math.floor(r() * 3000) }, fieldConfidences: { amount: conf } };
      } else if (k < 7) {
        yield { contextId, modelId: modelIds.Applicant, sourceId: src, sourceType: k % 2 ? "document" : "integration", data: { applicantId: `a${k % 2}`, creditScore: 550 + Math.floor(r() * 300) }, fieldConfidences: { creditScore: conf } };
      } else {
        yield { contextId, modelId: modelIds.Employment, sourceId: src, sourceType: "document", data: { employmentId: `e${k % 2}`, applicantId: `a${k % 2}`, monthlyIncome: 2000 + Math.floor(r() * 6000) } };
      }
    }
  }
}
