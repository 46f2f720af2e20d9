import { execa } from "execa";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeNextRelease } from "../helpers/next-release.js";
import { binDir, freePort, releasePort, serverPort, serverUser, startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";

/**
 * docs/deployment.md and then docs/operations.md, run as written: every ```sh block of the
 * two pages, in page order, line by line in bash, against a throwaway PostgreSQL 15, so the
 * pages cannot drift from what works. The pages set up a streaming standby themselves
 * (`pg_basebackup -R`, on a port of its own), promote it, fail back, dump and restore, back
 * up a SQLite database while `serve` runs, and upgrade to a next release. What the test
 * supplies:
 *
 * - the variables the pages ask the operator to set (PGHOST, PGPORT, PGUSER, PORT,
 *   METRICS_PORT, STANDBY_HOST, STANDBY_PORT, STANDBY_DATA, PRIMARY_DATA, NEW_DDSCTL),
 *   pointing at the throwaway server, free ports, data folders and a next release; the
 *   servers ask every role for its password (SCRAM), and the superuser's is in the
 *   operator's ~/.pgpass, as the page assumes;
 * - `ddsctl` on the PATH (this checkout), PostgreSQL's programs, and a working folder
 *   holding `models/` (the mortgage fixtures) and `evidence.ndjson`, the operator's files;
 * - as NEW_DDSCTL, this checkout's build with one more migration (test/helpers/next-release.ts),
 *   to which this checkout is the old release.
 *
 * The pages run as the user PostgreSQL runs as (`postgres` when the test runs as root; the
 * server programs refuse root), which plays both the operator and the database machines'
 * `postgres` user, with one home folder.
 *
 * A line that starts `ddsctl serve` (or `"$NEW_DDSCTL" serve`, after optional `NAME=value`
 * assignments) runs in the background (it runs until stopped), and the next line waits until
 * that node is ready; a later serve line replaces it. A serve line ending in `&` puts itself in
 * the background and is stopped by its own block; one ending in `|| …` is expected to end by
 * itself: both run as written once the node before them has stopped.
 *
 * Markers, an HTML comment on the line before a block (any other is an error):
 * - `<!-- deployment-test: yours -->`: the block sets the operator's variables; it is not
 *   run, and may set only variables this test supplies.
 * - `<!-- deployment-test: failover -->`: before the block runs, the primary is stopped (as a
 *   failure would stop it); the block promotes the standby itself.
 * - `<!-- deployment-test: skip -->`: the block is not run (say why in the page).
 */
const ROOT = resolve(import.meta.dirname, "../..");
const PAGES = ["deployment.md", "operations.md"];
const SUPPLIED = ["PGHOST", "PGPORT", "PGUSER", "PORT", "METRICS_PORT", "STANDBY_HOST", "STANDBY_PORT", "STANDBY_DATA", "PRIMARY_DATA", "NEW_DDSCTL"];
const MARKERS = new Set(["yours", "failover", "skip"]);

interface Block {
  marker?: string;
  lines: string[];
  /** Where in the pages the block's first line is (`docs/deployment.md:42`). */
  at: string;
}

/** The ```sh blocks of a Markdown page, with the marker before each (continuation lines joined). */
function shellBlocks(page: string, markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "```sh") continue;
    const marker = /^<!-- deployment-test: (\S+) -->$/.exec(lines[i - 1]?.trim() ?? "")?.[1];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && lines[j].trim() !== "```"; j++) body.push(lines[j]);
    const joined = body.join("\n").replace(/\\\n\s*/g, "");
    blocks.push({ marker, lines: joined.split("\n").filter((l) => l.trim() !== "" && !l.trim().startsWith("#")), at: `docs/${page}:${i + 2}` });
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
    const serve = /^\s*(\w+=("[^"]*"|\S+)\s+)*(ddsctl|"\$NEW_DDSCTL") serve\b/.test(line);
    // A comment at the end of the line would swallow what the test appends to it.
    const command = line.replace(/\s+#\s.*$/, "");
    // A line that is expected to fail (`… || echo "exit code $?"`) says why on stdout, where
    // the test reads it, so its error line is not taken for a failure of the block.
    const expected = command.replace(/\s*\|\|/, " 2>&1 ||");
    if (serve && (/&\s*$/.test(command) || /\|\|/.test(command))) out.push("stop_node", /\|\|/.test(command) ? expected : line);
    else if (/\|\|/.test(command) && !/^\s*(until|while|if)\b/.test(command)) out.push(expected);
    else if (serve) out.push("stop_node", `${command} > node.log 2>&1 &`, "echo $! > node.pid", "node_ready");
    else out.push(line);
  }
  out.push(`export -p > ${envFile}`);
  return out.join("\n");
}

/** The superuser's password: only in the operator's ~/.pgpass, never on a command line. */
const SUPERUSER_PASSWORD = "operator-only";
/** Who runs the pages: PostgreSQL's user when this is root (the server programs refuse root), else this user. */
const runAs = serverUser();
let primary: PgCluster;
let dir: string;
let standbyData: string;
let next: { bin: string; version: string };
/** The standby's port, once the run has taken it. */
let standbyPort: number | undefined;
/** `pg_ctl` as the pages' user, for what the pages started themselves. */
const pgCtl = (args: string[]) => execa(join(binDir(), "pg_ctl"), args, { reject: false, ...(runAs ?? {}) });
beforeAll(async () => {
  // synchronous_commit as PostgreSQL's default, for the synchronous standby the page sets up.
  primary = await startPostgres({ superuser: "postgres", password: SUPERUSER_PASSWORD, settings: ["synchronous_commit=on"] });
  // What the pages' copies of the primary (pg_basebackup) start with: the primary's file,
  // not its command line. A hot standby needs max_connections as high as its primary's.
  appendFileSync(join(primary.dataDir, "postgresql.conf"), `max_connections = 300\nunix_socket_directories = '${primary.socketDir}'\nfsync = off\n`);
  dir = mkdtempSync(join(tmpdir(), "ddsctl-deployment-"));
  standbyData = join(dir, "db-2");
  writeFileSync(join(dir, ".pgpass"), `127.0.0.1:*:*:postgres:${SUPERUSER_PASSWORD}\n`, { mode: 0o600 });
  mkdirSync(join(dir, "bin"));
  symlinkSync(join(ROOT, "bin", "ddsctl"), join(dir, "bin", "ddsctl"));
  cpSync(join(ROOT, "fixtures", "mortgage", "models"), join(dir, "models"), { recursive: true });
  const line = (ref: string, amount: number) =>
    JSON.stringify({ contextRef: ref, modelName: "Loan", sourceId: "application", sourceType: "document", data: { amount, termMonths: 360, purpose: "purchase", applicationDate: "2026-11-01" } });
  writeFileSync(join(dir, "evidence.ndjson"), `${line("case-1", 250_000)}\n${line("case-2", 410_000)}\n`);
  next = makeNextRelease(dir);
  if (runAs) await execa("chown", ["-hR", `${runAs.uid}:${runAs.gid}`, dir]);
}, 120_000);
afterAll(async () => {
  const pid = dir && existsSync(join(dir, "node.pid")) ? Number(readFileSync(join(dir, "node.pid"), "utf8")) : undefined;
  if (pid) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already stopped.
    }
  }
  // The standby the page made; the primary's folder (rebuilt by the page) is the helper's.
  if (standbyData && existsSync(join(standbyData, "postmaster.pid"))) await pgCtl(["-D", standbyData, "-m", "immediate", "-w", "stop"]);
  await primary?.stop();
  if (standbyPort !== undefined) releasePort(standbyPort);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("docs/deployment.md and docs/operations.md", () => {
  const blocks = PAGES.flatMap((page) => shellBlocks(page, readFileSync(join(ROOT, "docs", page), "utf8")));

  it("have shell blocks for every section the operator follows, and only markers this test knows", () => {
    const text = PAGES.map((page) => readFileSync(join(ROOT, "docs", page), "utf8")).join("\n");
    for (const section of [
      "Setting up PostgreSQL",
      "Two nodes behind a load balancer",
      "Health and readiness",
      "Pool sizing",
      "When the database goes away",
      "A standby",
      "Failover",
      "Failing back",
      "Metrics",
      "Logs",
      "Backing up PostgreSQL",
      "Backing up SQLite while serve runs",
      "Rolling upgrades",
    ]) {
      expect(text).toContain(`## ${section}`);
    }
    expect(blocks.filter((b) => b.marker && !MARKERS.has(b.marker))).toEqual([]);
    expect(blocks.filter((b) => b.marker === "failover")).toHaveLength(1);
    for (const b of blocks.filter((x) => x.marker === "yours")) {
      const set = b.lines.flatMap((l) => [...l.matchAll(/(?:^|\s)([A-Z_]+)=/g)].map((m) => m[1]));
      expect(set.filter((name) => !SUPPLIED.includes(name)), b.at).toEqual([]);
    }
  });

  it("put no password on a command line", () => {
    for (const block of blocks) {
      for (const line of block.lines) {
        // A URL with user:password@, a password variable set on the line, a literal password.
        expect(line, block.at).not.toMatch(/postgres(ql)?:\/\/[^\s/@:]+:[^\s/@]+@/);
        expect(line, block.at).not.toMatch(/\bPGPASSWORD=/);
        expect(line, block.at).not.toMatch(/PASSWORD '(?!%s')/);
        expect(line, block.at).not.toMatch(/--database\b/);
      }
    }
  });

  it("run line by line against a throwaway PostgreSQL 15, making its standby, failing over and back, as written", async () => {
    // The standby's port is a PostgreSQL server's: held as the test servers hold theirs (see serverPort).
    const [port, metricsPort] = [await freePort(), await freePort()];
    standbyPort = await serverPort();
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
      STANDBY_PORT: String(standbyPort),
      STANDBY_DATA: standbyData,
      PRIMARY_DATA: primary.dataDir,
      NEW_DDSCTL: next.bin,
    };
    let stdout = "";
    for (const block of blocks) {
      if (block.marker === "yours" || block.marker === "skip") continue;
      if (block.marker === "failover") await primary.halt("fast");
      const r = await execa("bash", ["-c", script(block.lines, join(dir, "env.sh"))], { cwd: dir, env, extendEnv: false, reject: false, ...(runAs ?? {}) });
      // A failed block says what the node logged too (the last of it): its own stderr shows only the commands.
      const nodeLog = r.exitCode === 0 || !existsSync(join(dir, "node.log")) ? "" : `\nthe node's log, last 4,000 characters:\n${readFileSync(join(dir, "node.log"), "utf8").slice(-4000)}`;
      expect(r.exitCode, `the block at ${block.at} failed:\n${r.stderr.slice(-6000)}${nodeLog}`).toBe(0);
      expect(r.stderr, block.at).not.toMatch(/^error:/m);
      stdout += `${r.stdout}\n`;
    }
    // What the pages say the checks answer.
    expect(stdout).toContain('{"status":"ok","database":"reachable"}');
    expect(stdout).toContain('{"status":"ready"}');
    // The standby streams, asynchronously until it is made synchronous.
    expect(stdout).toMatch(/^db_2\|streaming\|async$/m);
    // After the failover the promoted standby answers, and is no standby any more.
    expect(stdout).toMatch(/(^|\})f$/m);
    // After the failback the nodes are on the first server again, which takes the writes.
    expect(stdout).toMatch(new RegExp(`(^|\\})${primary.port}\\|f$`, "m"));
    expect(stdout).toMatch(/^dds_db_up 1$/m);
    expect(stdout).toMatch(/^404$/m);
    expect(stdout).toMatch(/"msg":"request"/);
    // The restored dump, and what a node with another key says of a webhook secret.
    expect(stdout).toMatch(/^context\/case-1\ncontext\/case-2$/m);
    expect(stdout).toMatch(/^a stored webhook-secret was encrypted with key [0-9a-f]{8}, which DDS_SECRET_KEY does not hold \(restore the key file or set DDS_SECRET_KEY\)$/m);
    // The SQLite copy made while serve ran is whole, with what was written meanwhile.
    expect(stdout).toMatch(/^ok$/m);
    // The upgrade: pending migrations, then the old release refuses the new schema.
    expect(stdout).toContain(`${next.version}\n`);
    expect(stdout).toMatch(/migration\(s\) pending\nexit code 1$/m);
    expect(stdout).toMatch(/newer than this ddsctl's \d+; upgrade ddsctl\nexit code 8$/m);
    expect(stdout).toMatch(/^error: database postgres:\/\/\S+ has schema version \d+, newer than this ddsctl supports \(\d+\); upgrade ddsctl\nexit code 8$/m);
  }, 300_000);
});
