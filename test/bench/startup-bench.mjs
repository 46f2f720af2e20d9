// Start-up: the wall time of short ddsctl commands against `node -e 0`, median of
// interleaved runs (each round runs every command once, so a busy moment hits all alike).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const BIN = resolve(import.meta.dirname, "../../bin/ddsctl");

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function timed(args, env, cwd) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, cwd, stdio: ["ignore", "ignore", "pipe"] });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return performance.now() - t0;
}

/** Runs the start-up section and returns its rows (medians in ms) and ratios. */
export async function runStartupBench({ rounds = 21 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "ddsctl-startup-"));
  const env = { ...process.env, DDS_DB: join(dir, "dds.db"), XDG_CONFIG_HOME: join(dir, "config"), NO_COLOR: "1" };
  try {
    // A small local database: one model and a few contexts.
    const model = JSON.stringify({ name: "Loan", fields: [{ name: "amount", type: "number" }] });
    spawnSync(process.execPath, [BIN, "models", "create", "-f", "-", "--quiet"], { env, input: model });
    for (let i = 0; i < 5; i++) timed([BIN, "contexts", "create", "--name", `case-${i}`, "--quiet"], env, dir);
    const commands = {
      "node -e 0": ["-e", "0"],
      "ddsctl --version": [BIN, "--version"],
      "ddsctl --help": [BIN, "--help"],
      "ddsctl contexts list --json": [BIN, "contexts", "list", "--json"],
      "ddsctl models get Loan --json": [BIN, "models", "get", "Loan", "--json"],
    };
    const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
    // One warm-up round fills the file system cache.
    for (let round = 0; round <= rounds; round++) {
      for (const [name, args] of Object.entries(commands)) {
        const ms = timed(args, env, dir);
        if (round > 0) times[name].push(ms);
      }
    }
    const base = median(times["node -e 0"]);
    const rows = [];
    const medians = Object.entries(times).map(([name, t]) => `${name.padEnd(32)}${median(t).toFixed(0).padStart(5)} ms`);
    rows.push({ note: `start-up (median of ${rounds} interleaved runs):\n  ${medians.join("\n  ")}` });
    rows.push({ name: "startup --version / node -e 0", ratio: median(times["ddsctl --version"]) / base, target: "<= 1.30", targetValue: 1.3, lowerIsBetter: true });
    // --help and an in-process list: load only what the command uses (issue 21's targets).
    for (const [name, target] of [["ddsctl --help", 1.5], ["ddsctl contexts list --json", 1.5], ["ddsctl models get Loan --json", 2]]) {
      rows.push({ name: `startup ${name.slice(7)} / node -e 0`, ratio: median(times[name]) / base, target: `<= ${target.toFixed(2)}`, targetValue: target, lowerIsBetter: true });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
