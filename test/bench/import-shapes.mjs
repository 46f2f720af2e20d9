// The two shapes of an import file the benchmarks load, written once per run and fed to
// every loader (ddsctl locally, remotely, on PostgreSQL, and the peers) unchanged.
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { MODELS, contributions, rng } from "./workload.mjs";

/**
 * The model of the record-heavy shape: a customer base or a document feed, where almost
 * every line is a new person identified by their social security number.
 */
export const PERSON_MODELS = [
  {
    name: "Applicant",
    identity: ["ssn"],
    fields: [
      { name: "ssn", type: "string" },
      { name: "name", type: "string" },
      { name: "birthDate", type: "string" },
      { name: "creditScore", type: "integer" },
      { name: "monthlyIncome", type: "number" },
    ],
  },
];

/**
 * The import shapes. `friendly`: about 100 contributions per context, a few records each,
 * contexts one after another (sources repeat, so most lines supersede). `recordHeavy`:
 * contexts interleaved line by line (`i % contexts`), every line a new Applicant.
 */
export const SHAPES = {
  friendly: {
    label: "friendly",
    models: MODELS,
    defaultContexts: 1000,
    *lines(rows, contexts) {
      const names = Array.from({ length: contexts }, (_, i) => `case-${i}`);
      for (const c of contributions(rows, names, { Loan: "Loan", Applicant: "Applicant", Employment: "Employment" })) {
        const { contextId, modelId, ...rest } = c;
        yield JSON.stringify({ contextRef: contextId, modelName: modelId, ...rest });
      }
    },
  },
  recordHeavy: {
    label: "record-heavy",
    models: PERSON_MODELS,
    defaultContexts: 100,
    *lines(rows, contexts) {
      const r = rng(11);
      for (let i = 0; i < rows; i++) {
        const ssn = String(100_000_000 + i);
        yield JSON.stringify({
          contextRef: `case-${i % contexts}`,
          modelName: "Applicant",
          sourceId: `feed-${i % 7}`,
          sourceType: "integration",
          data: {
            ssn,
            name: `Person ${i}`,
            birthDate: `19${50 + Math.floor(r() * 50)}-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 9)}`,
            creditScore: 500 + Math.floor(r() * 350),
            monthlyIncome: 1500 + Math.floor(r() * 9000),
          },
          fieldConfidences: { creditScore: Math.round(r() * 100) / 100 },
        });
      }
    },
  },
};

/** Streams `rows` lines of `shape` to `path`. */
export async function writeShape(path, shape, rows, contexts) {
  const out = createWriteStream(path);
  for (const line of shape.lines(rows, contexts)) {
    if (!out.write(`${line}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}
