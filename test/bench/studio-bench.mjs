// The studio's page in Debian's Chromium (playwright-core): how long the demo's first view
// takes to become interactive (the cases listed with their pass/fail counts), cold (a new
// browser profile) and warm (median of later loads), and how long a 2,000-record case takes
// to show its graph, with the longest main-thread task meanwhile (a frozen page shows as one
// long task). Measured here, never asserted in tests.
import { execa } from "execa";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { LARGE_CASE, writeLargeCase } from "../studio/large-case.mjs";

const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const WARM_LOADS = 5;
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Opens `path` in a new page; resolves with ms from navigation start to `selector`, and the longest task. */
async function timeView(context, url, selector) {
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
    }).observe({ type: "longtask", buffered: true });
  });
  await page.goto(url);
  await page.locator(selector).first().waitFor({ timeout: 120_000 });
  const result = await page.evaluate(() => ({ ms: performance.now(), longest: window.__longest }));
  await page.close();
  return result;
}

/** Runs the studio section; returns rows for the bench table. */
export async function runStudioBench() {
  if (!existsSync(CHROMIUM)) return [{ note: `studio: skipped, no Chromium at ${CHROMIUM} (apt-get install -y chromium)` }];
  const dir = mkdtempSync(join(tmpdir(), "ddsctl-studio-bench-"));
  const env = { NO_COLOR: "1", XDG_CONFIG_HOME: join(dir, "config"), DDS_DB: join(dir, "dds.db") };
  const profile = join(dir, "profile");
  let studio;
  let context;
  try {
    await execa("node", [BIN, "demo", "--quiet"], { cwd: dir, env });
    writeLargeCase(join(dir, "large.ndjson"));
    await execa("node", [BIN, "import", "contributions", "large.ndjson", "--create-contexts", "--quiet"], { cwd: dir, env });
    const large = JSON.parse((await execa("node", [BIN, "contexts", "list", "--filter", `name=${LARGE_CASE}`, "--json", "--quiet"], { cwd: dir, env })).stdout).data[0].contextId;
    studio = execa("node", [BIN, "studio", "--port", "0"], { cwd: dir, env, reject: false });
    const url = await new Promise((ok, fail) => {
      let out = "";
      studio.stdout.on("data", (c) => {
        out += c.toString();
        const m = /(http:\/\/\S+#session=\S+)/.exec(out);
        if (m) ok(m[1]);
      });
      void studio.then(() => fail(new Error("ddsctl studio exited early")));
    });
    const origin = url.split("/#")[0];
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 800 }, args: ARGS });
    // Interactive = the cases listed, each a link; complete = the failing case's counts shown too
    // (the counts arrive last, one small request per case on screen).
    const listed = 'tr[data-case="haddad-purchase"] a';
    const counted = 'tr[data-case="haddad-purchase"] td.fail-text';
    const cold = await timeView(context, url, listed);
    const warm = [];
    const complete = [];
    for (let i = 0; i < WARM_LOADS; i++) {
      warm.push((await timeView(context, `${origin}/cases`, listed)).ms);
      complete.push((await timeView(context, `${origin}/cases`, counted)).ms);
    }
    const graph = [];
    let longest = 0;
    for (let i = 0; i < 3; i++) {
      const r = await timeView(context, `${origin}/cases/${large}`, '[data-node="model:Applicant"]');
      graph.push(r.ms);
      longest = Math.max(longest, r.longest);
    }
    return [
      { name: "s studio: demo first view interactive, cold profile, s", ratio: cold.ms / 1000, target: "< 1.00", targetValue: 1, lowerIsBetter: true },
      { name: `s studio: demo first view interactive, warm (median of ${WARM_LOADS}), s`, ratio: median(warm) / 1000, target: "< 1.00", targetValue: 1, lowerIsBetter: true },
      { name: `s studio: demo first view with every count, warm (median of ${WARM_LOADS}), s`, ratio: median(complete) / 1000, target: "-" },
      { name: "s studio: 2,000-record case, graph shown (median of 3), s", ratio: median(graph) / 1000, target: "-" },
      { note: `studio: longest main-thread task while the 2,000-record case loads: ${Math.round(longest)} ms (the page stays responsive: records are aggregated by model and listed virtually)` },
    ];
  } finally {
    await context?.close();
    if (studio) {
      studio.kill("SIGTERM");
      await studio;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
