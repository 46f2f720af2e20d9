// A throwaway PostgreSQL server for tests and benchmarks, from the machine's own binaries
// (plain JS so `npm run bench`, which runs on dist/, uses the same code; types in
// pg-cluster.d.mts).
import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

/** Where the machine's PostgreSQL 15 binaries are (DDS_PG_BIN overrides). */
export function binDir() {
  const candidates = [process.env.DDS_PG_BIN, "/usr/lib/postgresql/15/bin"].filter(Boolean);
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim());
  } catch {
    // pg_config absent: the fixed candidates are all there is.
  }
  const found = candidates.find((d) => existsSync(join(d, "initdb")) && existsSync(join(d, "pg_ctl")));
  if (!found) {
    throw new Error(`PostgreSQL server binaries (initdb, pg_ctl) not found in ${candidates.join(", ")}: install postgresql-15 (.ci/run does) or set DDS_PG_BIN`);
  }
  return found;
}

/** A TCP port of 127.0.0.1 free right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Where this machine's test servers note the ports they hold (one file per port, holding its owner's pid). */
const PORTS = join(tmpdir(), "ddsctl-pg-ports");

/** Whether a process of this pid is alive. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/** Takes a port's file for this process, unless another process holds it. */
function take(file) {
  try {
    writeFileSync(file, String(process.pid), { flag: "wx" });
    return true;
  } catch (err) {
    if (err.code === "EEXIST") return false;
    throw err;
  }
}

/**
 * A free port of 127.0.0.1 for a PostgreSQL server, held for it until `releasePort` (its
 * `stop`), across the processes of a test run: a server halted by a fault test must find its
 * port free when it is started again, and a node that tries it meanwhile must find nothing
 * there, not another test's server (which refuses its login, and a multi-host URL tries no
 * further host after that: the node would wait for ever). A port held by a process that has
 * died is free again.
 */
export async function serverPort() {
  mkdirSync(PORTS, { recursive: true });
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await freePort();
    const file = join(PORTS, String(port));
    if (take(file)) return port;
    // Held: unless its holder died (or gave it back meanwhile), another port. A dead holder's
    // port is free again, to whichever process takes its file first.
    let owner;
    try {
      owner = Number(readFileSync(file, "utf8"));
    } catch {
      // Given back since: try to take it.
    }
    if (owner !== undefined) {
      // Empty (its holder is still writing its pid) or alive: held.
      if (!owner || alive(owner)) continue;
      rmSync(file, { force: true });
    }
    if (take(file)) return port;
  }
  throw new Error(`no free port for a PostgreSQL server after 100 tries (see ${PORTS})`);
}

/** Gives back a port taken with `serverPort`. */
export function releasePort(port) {
  rmSync(join(PORTS, String(port)), { force: true });
}

/**
 * The uid/gid of the `postgres` user when this process runs as root (initdb refuses root),
 * which then owns the servers' files; undefined when this process's own user does.
 */
export function serverUser() {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    throw new Error("running as root, and there is no `postgres` user to run the PostgreSQL server as (initdb refuses root)");
  }
}

/**
 * Starts a PostgreSQL server: `initdb` into a temporary folder, `pg_ctl start` on a free
 * port of 127.0.0.1, durability off (tests need speed, not crash safety). As root, the
 * server runs as the `postgres` user. Never a mock: when PostgreSQL cannot start, this
 * throws with the reason and the server's log.
 *
 * The fault tests also stop it and start it again (`halt`, `resume`, `restart`), and add a
 * streaming standby (`startReplica`, made with `pg_basebackup -R`) that they promote.
 *
 * With `password`, every role logs in with SCRAM-SHA-256 password authentication (the
 * superuser with that password), as a production server asks; otherwise trust.
 */
export async function startPostgres({ settings: extra = [], superuser = "dds", password } = {}) {
  return server({
    extra,
    superuser,
    password,
    init: (run, data, dir) => {
      if (password === undefined) return run("initdb", ["-D", data, "-U", superuser, "--auth=trust", "-E", "UTF8", "--locale=C", "-N"]);
      const pwfile = join(dir, "superuser.password");
      writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
      const user = serverUser();
      if (user) chownSync(pwfile, user.uid, user.gid);
      run("initdb", ["-D", data, "-U", superuser, "--auth=scram-sha-256", `--pwfile=${pwfile}`, "-E", "UTF8", "--locale=C", "-N"]);
      rmSync(pwfile);
    },
  });
}

/** A server in a folder of its own: `init` fills its data folder (initdb, or a base backup). */
async function server({ extra, superuser, password, init }) {
  const bin = binDir();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "ddsctl-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  // A client tool (pg_basebackup) logs in with the superuser's password, never on its command line.
  const env = password === undefined ? process.env : { ...process.env, PGPASSWORD: password };
  const run = (tool, args) => {
    const [cmd, argv] = user ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]] : [join(bin, tool), args];
    try {
      execFileSync(cmd, argv, { stdio: "pipe", encoding: "utf8", env });
    } catch (err) {
      const serverLog = existsSync(log) ? readFileSync(log, "utf8").slice(-2000) : "";
      throw new Error(`PostgreSQL ${tool} failed: ${err.stderr || err.stdout || err.message}\n${serverLog}`);
    }
  };
  // The same, without blocking this process: the fault tests keep their load running meanwhile.
  const runAsync = (tool, args) =>
    new Promise((resolve, reject) => {
      const [cmd, argv] = user ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]] : [join(bin, tool), args];
      execFile(cmd, argv, { encoding: "utf8" }, (err, stdout, stderr) => {
        if (!err) return resolve();
        const serverLog = existsSync(log) ? readFileSync(log, "utf8").slice(-2000) : "";
        reject(new Error(`PostgreSQL ${tool} failed: ${stderr || stdout || err.message}\n${serverLog}`));
      });
    });
  const port = await serverPort();
  init(run, data, dir);
  const settings = [`-p ${port} -h 127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`, ...extra.map((s) => `-c ${s}`)].join(" ");
  const pgCtl = (...args) => run("pg_ctl", ["-D", data, ...args]);
  const start = () => pgCtl("-o", settings, "-l", log, "-w", "-t", "60", "start");
  start();
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    try {
      pgCtl("-m", "immediate", "-w", "stop");
    } catch {
      // Already stopped (a test halted it): only the files are left to remove.
    } finally {
      rmSync(dir, { recursive: true, force: true });
      releasePort(port);
    }
  };
  // A process that dies must not leave a server behind.
  process.once("exit", stopNow);
  const admin = postgres(`postgres://${superuser}@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => undefined, ...(password === undefined ? {} : { pass: password }) });
  let n = 0;
  return {
    port,
    socketDir: dir,
    dataDir: data,
    url: (database) => `postgres://${superuser}@127.0.0.1:${port}/${database}`,
    async createDatabase() {
      const name = `t${process.pid}_${++n}_${Math.random().toString(36).slice(2, 8)}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      return `postgres://${superuser}@127.0.0.1:${port}/${name}`;
    },
    query: (text, params = []) => admin.unsafe(text, params),
    halt: (mode = "fast") => runAsync("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]),
    resume: () => runAsync("pg_ctl", ["-D", data, "-o", settings, "-l", log, "-w", "-t", "60", "start"]),
    restart: (mode = "fast") => runAsync("pg_ctl", ["-D", data, "-o", settings, "-l", log, "-m", mode, "-w", "-t", "60", "restart"]),
    promote: () => runAsync("pg_ctl", ["-D", data, "-w", "-t", "60", "promote"]),
    async startReplica() {
      return server({
        extra,
        superuser,
        password,
        init: (runAs, replicaData) => runAs("pg_basebackup", ["-h", "127.0.0.1", "-p", String(port), "-U", superuser, "-D", replicaData, "-R", "-X", "stream", "-c", "fast"]),
      });
    },
    log: () => (existsSync(log) ? readFileSync(log, "utf8") : ""),
    async stop() {
      await admin.end({ timeout: 1 });
      process.off("exit", stopNow);
      stopNow();
    },
  };
}
