// `npm run bench`: the project's benchmarks, printed as one stable table.
// Usage: node test/bench/run.mjs [--only ingest,eval] [--rows 100000] [--contexts 1000]
import { runIngestBench } from "./ingest-bench.mjs";
import { runEvalBench } from "./eval-bench.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const only = opt("only", "ingest,eval").split(",");
const rows = Number(opt("rows", "100000"));
const contexts = Number(opt("contexts", "1000"));

const results = [];
if (only.includes("ingest")) results.push(...(await runIngestBench({ rows, contexts })));
if (only.includes("eval")) results.push(...(await runEvalBench()));

const pad = (s, n) => String(s).padEnd(n);
console.log(`\nddsctl benchmarks (node ${process.version}, ${new Date().toISOString().slice(0, 10)})`);
console.log(`${pad("benchmark", 58)}${pad("rows", 10)}${pad("seconds", 10)}rows/s`);
for (const r of results.filter((x) => x.rows !== undefined)) {
  console.log(`${pad(r.name, 58)}${pad(r.rows, 10)}${pad(r.seconds.toFixed(2), 10)}${Math.round(r.rows / r.seconds).toLocaleString("en-US")}`);
}
const ratios = results.filter((x) => x.ratio !== undefined);
if (ratios.length) {
  console.log("\nratios");
  for (const r of ratios) console.log(`${pad(r.name, 58)}${r.ratio.toFixed(2)}  (target ${r.target})  ${r.ratio >= r.targetValue ? "met" : "NOT MET"}`);
}
