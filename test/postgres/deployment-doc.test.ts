import { execa } from "execa";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binDir, freePort, startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";

/**
 * docs/deployment.md, run as written: every ```sh block of the page, in page order, line by
 * line in bash, against a throwaway PostgreSQL 15 (and a streaming standby for the failover
 * section), so the page cannot drift from what works. What the test supplies:
 *
 * - the variables the page asks the operator to set (PGHOST, PGPORT, PGUSER, PORT,
 *   METRICS_PORT, STANDBY_HOST, STANDBY_PORT), pointing at the throwaway servers and free
 *   ports; the servers ask every role for its password (SCRAM), and the superuser's is in
 *   the operator's ~/.pgpass, as the page assumes;
 * - `ddsctl` on the PATH (this checkout), PostgreSQL's client programs, and a working folder
 *   holding `models/` (the mortgage fixtures) and `evidence.ndjson`, the operator's files.
 *
 * A line that starts `ddsctl serve` runs in the background (it runs until stopped), and the
 * next line waits until that node is ready; a later `ddsctl serve` line replaces it. A
 * `ddsctl serve … &` line, which puts itself in the background and is stopped by its own
 * block, runs as written once the node before it has stopped.
 *
 * Markers, an HTML comment on the line before a block (any other is an error):
 * - `<!-- deployment-test: yours -->`: the block sets the operator's variables; it is not
 *   run, and may set only variables this test supplies.
 * - `<!-- deployment-test: failover -->`: before the block runs, the primary is stopped and
 *   the standby promoted.
 * - `<!-- deployment-test: skip -->`: the block is not run (say why in the page).
 */
const ROOT = resolve(import.meta.dirname, "../..");
const PAGE = join(ROOT, "docs", "deployment.md");
const SUPPLIED = ["PGHOST", "PGPORT", "PGUSER", "PORT", "METRICS_PORT", "STANDBY_HOST", "STANDBY_PORT"];
const MARKERS = new Set(["yours", "failover", "skip"]);

interface Block {
  marker?: string;
  lines: string[];
  /** Line number in the page of the block's first line. */
  at: number;
}

/** The ```sh blocks of a Markdown page, with the marker before each (continuation lines joined). */
function shellBlocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "```sh") continue;
    const marker = /^<!-- deployment-test: (\S+) -->$/.exec(lines[i - 1]?.trim() ?? "")?.[1];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && lines[j].trim() !== "```"; j++) body.push(lines[j]);
    const joined = body.join("\n").replace(/\\\n\s*/g, "");
    blocks.push({ marker, lines: joined.split("\n").filter((l) => l.trim() !== "" && !l.trim().startsWith("#")), at: i + 2 });
    i = j;
  }
  return blocks;
}

/** bash that runs `lines` one by one, each echoed first; `ddsctl serve` goes to the background and is waited for. */
function script(lines: string[], envFile: string): string {
  const out = [
    "set -euo pipefail",
    `[ -f ${envFile} ] && source ${envFile}`,
    // A node already started by an earlier line gives way to the new one.
    'stop_node() { if [ -f node.pid ]; then kill -TERM "$(cat node.pid)" 2>/dev/null || true; while kill -0 "$(cat node.pid)" 2>/dev/null; do sleep 0.1; done; rm -f node.pid; fi; }',
    'node_ready() { for _ in $(seq 600); do curl -fsS -o /dev/null "http://localhost:$PORT/readyz" && return 0; kill -0 "$(cat node.pid)" 2>/dev/null || { cat node.log >&2; return 1; }; sleep 0.1; done; cat node.log >&2; return 1; }',
  ];
  for (const line of lines) {
    out.push(`printf '%s\\n' '${`$ ${line}`.replace(/'/g, "'\\''")}' >&2`);
    const serve = /^\s*ddsctl serve\b/.test(line);
    // A comment at the end of the line would swallow what the test appends to it.
    const command = line.replace(/\s+#\s.*$/, "");
    if (serve && /&\s*$/.test(command)) out.push("stop_node", line);
    else if (serve) out.push("stop_node", `${command} > node.log 2>&1 &`, "echo $! > node.pid", "node_ready");
    else out.push(line);
  }
  out.push(`export -p > ${envFile}`);
  return out.join("\n");
}

/** The superuser's password: only in the operator's ~/.pgpass, never on a command line. */
const SUPERUSER_PASSWORD = "operator-only";
let primary: PgCluster;
let standby: PgCluster;
let dir: string;
beforeAll(async () => {
  primary = await startPostgres({ superuser: "postgres", password: SUPERUSER_PASSWORD });
  standby = await primary.startReplica();
  dir = mkdtempSync(join(tmpdir(), "ddsctl-deployment-"));
  writeFileSync(join(dir, ".pgpass"), `127.0.0.1:*:*:postgres:${SUPERUSER_PASSWORD}\n`, { mode: 0o600 });
  mkdirSync(join(dir, "bin"));
  symlinkSync(join(ROOT, "bin", "ddsctl"), join(dir, "bin", "ddsctl"));
  cpSync(join(ROOT, "fixtures", "mortgage", "models"), join(dir, "models"), { recursive: true });
  const line = (ref: string, amount: number) =>
    JSON.stringify({ contextRef: ref, modelName: "Loan", sourceId: "application", sourceType: "document", data: { amount, termMonths: 360, purpose: "purchase", applicationDate: "2026-11-01" } });
  writeFileSync(join(dir, "evidence.ndjson"), `${line("case-1", 250_000)}\n${line("case-2", 410_000)}\n`);
}, 120_000);
afterAll(async () => {
  const pid = existsSync(join(dir, "node.pid")) ? Number(readFileSync(join(dir, "node.pid"), "utf8")) : undefined;
  if (pid) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already stopped.
    }
  }
  await standby?.stop();
  await primary?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("docs/deployment.md", () => {
  const blocks = shellBlocks(readFileSync(PAGE, "utf8"));

  it("has shell blocks for every section the operator follows, and only markers this test knows", () => {
    const text = readFileSync(PAGE, "utf8");
    for (const section of ["Setting up PostgreSQL", "Two nodes behind a load balancer", "Health and readiness", "Pool sizing", "When the database goes away", "Failover", "Metrics", "Logs"]) {
      expect(text).toContain(`## ${section}`);
    }
    expect(blocks.filter((b) => b.marker && !MARKERS.has(b.marker))).toEqual([]);
    expect(blocks.filter((b) => b.marker === "failover")).toHaveLength(1);
    for (const b of blocks.filter((x) => x.marker === "yours")) {
      const set = b.lines.flatMap((l) => [...l.matchAll(/(?:^|\s)([A-Z_]+)=/g)].map((m) => m[1]));
      expect(set.filter((name) => !SUPPLIED.includes(name)), `line ${b.at}`).toEqual([]);
    }
  });

  it("puts no password on a command line", () => {
    for (const block of blocks) {
      for (const line of block.lines) {
        // A URL with user:password@, a password variable set on the line, a literal password.
        expect(line, `docs/deployment.md:${block.at}`).not.toMatch(/postgres(ql)?:\/\/[^\s/@:]+:[^\s/@]+@/);
        expect(line, `docs/deployment.md:${block.at}`).not.toMatch(/\bPGPASSWORD=/);
        expect(line, `docs/deployment.md:${block.at}`).not.toMatch(/PASSWORD '(?!%s')/);
        expect(line, `docs/deployment.md:${block.at}`).not.toMatch(/--database\b/);
      }
    }
  });

  it("runs line by line against a throwaway PostgreSQL 15 with a standby, as written", async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const env: Record<string, string> = {
      PATH: `${join(dir, "bin")}:${binDir()}:${process.env.PATH ?? ""}`,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, "config"),
      NO_COLOR: "1",
      PGHOST: "127.0.0.1",
      PGPORT: String(primary.port),
      PGUSER: "postgres",
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      STANDBY_HOST: "127.0.0.1",
      STANDBY_PORT: String(standby.port),
    };
    let stdout = "";
    for (const block of blocks) {
      if (block.marker === "yours" || block.marker === "skip") continue;
      if (block.marker === "failover") {
        await primary.halt("fast");
        await standby.promote();
      }
      const r = await execa("bash", ["-c", script(block.lines, join(dir, "env.sh"))], { cwd: dir, env, extendEnv: false, reject: false });
      expect(r.exitCode, `the block at docs/deployment.md:${block.at} failed:\n${r.stderr}`).toBe(0);
      expect(r.stderr, `docs/deployment.md:${block.at}`).not.toMatch(/^error:/m);
      stdout += `${r.stdout}\n`;
    }
    // What the page says the checks answer.
    expect(stdout).toContain('{"status":"ok","database":"reachable"}');
    expect(stdout).toContain('{"status":"ready"}');
    // After the failover the promoted standby answers, and is no standby any more.
    expect(stdout).toMatch(/(^|\})f$/m);
    expect(stdout).toMatch(/^dds_db_up 1$/m);
    expect(stdout).toMatch(/^404$/m);
    expect(stdout).toMatch(/"msg":"request"/);
  }, 180_000);
});
