// `npm run bench`: the project's benchmarks, printed as one stable table.
// Usage: node test/bench/run.mjs [--only startup,ingest,eval,http,ratelimit,import,resolved,checkpoints,pass,pgimport,studio,scale,webhooks,capped] [--rows 100000] [--contexts 1000] [--import-rows 1000000] [--heavy-rows 200000] [--import-runs 1] [--resolved-rows 200000] [--resolved-runs 3] [--pg-import-rows 200000] [--pg-import-runs 1] [--startup-rounds 21] [--webhook-deliveries 20000] [--webhook-waiting 100000]
import { runIngestBench } from "./ingest-bench.mjs";
import { runPgImportBench } from "./pg-import-bench.mjs";
import { runEvalBench } from "./eval-bench.mjs";
import { runImportBench } from "./import-bench.mjs";
import { runPassBench } from "./pass-bench.mjs";
import { runCheckpointBench } from "./checkpoint-bench.mjs";
import { runResolvedBench } from "./resolved-bench.mjs";
import { runCappedBench } from "./capped-bench.mjs";
import { runHttpBench } from "./http-bench.mjs";
import { runScaleBench } from "./scale-bench.mjs";
import { runStartupBench } from "./startup-bench.mjs";
import { runStudioBench } from "./studio-bench.mjs";
import { runWebhookBench } from "./webhook-bench.mjs";
import { runRateLimitBench } from "./rate-limit-bench.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const only = opt("only", "startup,ingest,eval,http,ratelimit,import,resolved,checkpoints,pass,pgimport,studio,scale,webhooks,capped").split(",");
const rows = Number(opt("rows", "100000"));
const contexts = Number(opt("contexts", "1000"));

const results = [];
if (only.includes("startup")) results.push(...(await runStartupBench({ rounds: Number(opt("startup-rounds", "21")) })));
if (only.includes("ingest")) results.push(...(await runIngestBench({ rows, contexts })));
if (only.includes("eval")) results.push(...(await runEvalBench()));
if (only.includes("http")) results.push(...(await runHttpBench({ rows: Math.min(rows, 20000), contexts: Math.min(contexts, 200) })));
// Rate limits on (the defaults, not reached) vs off, GET and bulk, in the same run.
if (only.includes("ratelimit")) results.push(...(await runRateLimitBench()));
// Issue 5 names a 1,000,000-line file: the import section uses one unless told otherwise.
const importRows = Number(opt("import-rows", "1000000"));
if (only.includes("import")) results.push(...(await runImportBench({ rows: importRows, heavyRows: Number(opt("heavy-rows", "200000")), runs: Number(opt("import-runs", "1")) })));
if (only.includes("resolved")) results.push(...(await runResolvedBench({ rows: Number(opt("resolved-rows", "200000")), runs: Number(opt("resolved-runs", "3")) })));
// SQLite commits with checkpoints on the writer's thread and in a thread of their own.
if (only.includes("checkpoints")) results.push(...(await runCheckpointBench({ rounds: Number(opt("checkpoint-rounds", "3")) })));
if (only.includes("pass")) results.push(...(await runPassBench()));
if (only.includes("pgimport")) results.push(...(await runPgImportBench({ rows: Number(opt("pg-import-rows", "200000")), runs: Number(opt("pg-import-runs", "1")) })));
if (only.includes("studio")) results.push(...(await runStudioBench()));
// On PostgreSQL started from the machine's binaries (fails with the reason when it cannot start).
if (only.includes("scale")) results.push(...(await runScaleBench({ rows: Math.min(rows, 20000), contexts: Math.min(contexts, 200) })));
// Issue 20: deliveries/s on SQLite and on PostgreSQL (1 and 2 nodes), GET latency while deliveries wait.
if (only.includes("webhooks")) results.push(...(await runWebhookBench({ deliveries: Number(opt("webhook-deliveries", "20000")), waiting: Number(opt("webhook-waiting", "100000")) })));

// Issue 25: serve nodes each held to a share of a core (cgroups; needs root: fails with the reason otherwise).
if (only.includes("capped")) results.push(...(await runCappedBench({ runs: Number(opt("capped-runs", "3")) })));

const pad = (s, n) => String(s).padEnd(n);
// The name column fits the longest name, so the figures always line up.
const W = Math.max(58, ...results.map((r) => (r.name ?? "").length + 2));
console.log(`\nddsctl benchmarks (node ${process.version}, ${new Date().toISOString().slice(0, 10)})`);
console.log(`${pad("benchmark", W)}${pad("rows", 10)}${pad("seconds", 10)}${pad("rows/s", 12)}peak RSS MiB`);
for (const r of results.filter((x) => x.rows !== undefined)) {
  const rss = r.rssMiB !== undefined ? r.rssMiB.toFixed(0) : "";
  console.log(`${pad(r.name, W)}${pad(r.rows, 10)}${pad(r.seconds.toFixed(2), 10)}${pad(Math.round(r.rows / r.seconds).toLocaleString("en-US"), 12)}${rss}`);
}
const ratios = results.filter((x) => x.ratio !== undefined);
if (ratios.length) {
  console.log("\nratios");
  const met = (r) => (r.lowerIsBetter ? r.ratio <= r.targetValue : r.ratio >= r.targetValue);
  for (const r of ratios) console.log(`${pad(r.name, W)}${r.ratio.toFixed(2)}  ${r.target === "-" ? "(no target)" : `(target ${r.target})  ${met(r) ? "met" : "NOT MET"}`}`);
}
const notes = results.filter((x) => x.note !== undefined);
if (notes.length) {
  console.log("\nnotes");
  for (const n of notes) console.log(n.note);
}
