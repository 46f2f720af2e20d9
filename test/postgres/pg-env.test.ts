import { execa } from "execa";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApp } from "../../src/engine/app.js";
import { BIN } from "../helpers/cli.js";
import { freePort, startPostgres, type PgCluster } from "../helpers/pg-cluster.mjs";

/**
 * The connection as libpq makes it, against a real PostgreSQL that asks for passwords
 * (SCRAM-SHA-256): the URL from DDS_DATABASE_URL alone, the password from PGPASSWORD or the
 * password file (~/.pgpass, PGPASSFILE) with libpq's matching, escapes and its refusal of a
 * file others may read, and the rest of the connection from PGHOST, PGPORT, PGUSER,
 * PGDATABASE, PGOPTIONS, PGAPPNAME and PGSSLMODE, so no password has to be on a command line.
 */
const PASSWORD = String.raw`s3:cr\et`;
let cluster: PgCluster;
let home: string;
beforeAll(async () => {
  cluster = await startPostgres({ superuser: "postgres", password: "super" });
  // A password holding ':' and '\', the two characters the password file escapes.
  await cluster.query(`CREATE ROLE dds LOGIN PASSWORD '${PASSWORD.replace(/'/g, "''")}'`);
  await cluster.query("CREATE DATABASE dds OWNER dds");
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

/** A fresh HOME, and the environment of a ddsctl run in it: nothing of this machine's PG* variables. */
function freshHome(extra: Record<string, string> = {}): Record<string, string> {
  home = mkdtempSync(join(tmpdir(), "ddsctl-pgenv-"));
  const env: Record<string, string> = { HOME: home, XDG_CONFIG_HOME: join(home, "config"), NO_COLOR: "1", PATH: process.env.PATH ?? "" };
  return { ...env, ...extra };
}

/** `hostname:port:database:username:password` with libpq's escapes. */
const escaped = (s: string) => s.replace(/\\/g, "\\\\").replace(/:/g, "\\:");

/** Writes `lines` as the password file at `path` with `mode`. */
function passfile(path: string, lines: string[], mode = 0o600): void {
  writeFileSync(path, `${lines.join("\n")}\n`);
  chmodSync(path, mode);
}

/** Runs the real binary (a child process: the driver gets exactly this environment). */
async function ddsctl(args: string[], env: Record<string, string>) {
  const r = await execa("node", [BIN, ...args], { env, extendEnv: false, reject: false, cwd: home });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

describe("the PostgreSQL connection, from the environment as libpq reads it", () => {
  const url = () => `postgres://dds@127.0.0.1:${cluster.port}/dds`;

  it("takes the URL from DDS_DATABASE_URL alone and the password from PGPASSWORD: migrate, tokens and serve", async () => {
    const env = freshHome({ DDS_DATABASE_URL: url(), PGPASSWORD: PASSWORD });
    const migrated = await ddsctl(["migrate"], env);
    expect(migrated.exitCode, migrated.stderr).toBe(0);
    const token = await ddsctl(["tokens", "create", "--scope", "admin", "--json"], env);
    expect(token.exitCode, token.stderr).toBe(0);
    const port = await freePort();
    const node = execa("node", [BIN, "serve"], { env: { ...env, DDS_PORT: String(port) }, extendEnv: false, reject: false, cwd: home });
    try {
      let stderr = "";
      await new Promise<void>((done, fail) => {
        node.stderr!.on("data", (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes("listening on")) done();
        });
        node.then((r) => fail(new Error(`serve exited ${r.exitCode}: ${stderr}`)), fail);
      });
      expect(stderr).toContain(`database postgres://dds@127.0.0.1:${cluster.port}/dds`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      const models = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { authorization: `Bearer ${JSON.parse(token.stdout).token}` } });
      expect(models.status).toBe(200);
    } finally {
      node.kill("SIGTERM");
      await node;
    }
  }, 60_000);

  it("reads ~/.pgpass as libpq does: the first matching line, * wildcards, \\: and \\\\ escapes", async () => {
    const env = freshHome({ DDS_DATABASE_URL: url() });
    passfile(join(home, ".pgpass"), [
      "# comments and lines for other databases are passed over",
      `127.0.0.1:${cluster.port}:other:dds:wrong`,
      `*:${cluster.port}:dds:dds:${escaped(PASSWORD)}`,
      `*:*:*:*:wrong`,
    ]);
    const r = await ddsctl(["migrate"], env);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
  });

  it("ignores a password file that group or others may read, and says so", async () => {
    const env = freshHome({ DDS_DATABASE_URL: url() });
    passfile(join(home, ".pgpass"), [`*:*:*:dds:${escaped(PASSWORD)}`], 0o644);
    const r = await ddsctl(["migrate"], env);
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/^error: cannot log in to database postgres:\/\/dds@127\.0\.0\.1:\d+\/dds: password authentication failed for user "dds".*~\/\.pgpass was ignored: group or others may access it \(chmod 0600/m);
    chmodSync(join(home, ".pgpass"), 0o600);
    expect((await ddsctl(["migrate"], env)).exitCode).toBe(0);
  });

  it("reads the file PGPASSFILE names; PGPASSWORD comes before any file, and the URL's password before both", async () => {
    const env = freshHome({ DDS_DATABASE_URL: url() });
    const file = join(home, "dds.pass");
    passfile(file, [`127.0.0.1:${cluster.port}:dds:dds:${escaped(PASSWORD)}`]);
    expect((await ddsctl(["migrate"], { ...env, PGPASSFILE: file })).exitCode).toBe(0);
    const wrong = await ddsctl(["migrate"], { ...env, PGPASSFILE: file, PGPASSWORD: "wrong" });
    expect(wrong.exitCode).toBe(7);
    expect(wrong.stderr).toContain("(with the password in PGPASSWORD)");
    const inUrl = `postgres://dds:${encodeURIComponent(PASSWORD)}@127.0.0.1:${cluster.port}/dds`;
    expect((await ddsctl(["migrate"], { ...env, DDS_DATABASE_URL: inUrl, PGPASSWORD: "wrong" })).exitCode).toBe(0);
  });

  it("looks the password up for the host each connection goes to (several hosts in the URL)", async () => {
    const dead = await freePort();
    const env = freshHome({ DDS_DATABASE_URL: `postgres://dds@127.0.0.1:${dead},127.0.0.1:${cluster.port}/dds` });
    // A line for the second host only: a lookup made for the first host would find nothing.
    passfile(join(home, ".pgpass"), [`127.0.0.1:${cluster.port}:dds:dds:${escaped(PASSWORD)}`]);
    const r = await ddsctl(["migrate"], env);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
  });

  it("takes what the URL leaves out from PGHOST, PGPORT, PGUSER and PGDATABASE (postgres:// alone), and a Unix socket folder as PGHOST", async () => {
    const env = freshHome({ DDS_DATABASE_URL: "postgres://", PGHOST: "127.0.0.1", PGPORT: String(cluster.port), PGUSER: "dds", PGDATABASE: "dds", PGPASSWORD: PASSWORD });
    const r = await ddsctl(["tokens", "list"], env);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.split("\n")[0]).toBe(`database postgres://dds@127.0.0.1:${cluster.port}/dds`);
    const socket = await ddsctl(["migrate"], { ...env, PGHOST: cluster.socketDir });
    expect(socket.stderr).not.toMatch(/^error/m);
    expect(socket.exitCode).toBe(0);
  });

  it("starts every session with PGOPTIONS' settings and PGAPPNAME's name; the URL's settings win", async () => {
    const env = { HOME: mkdtempSync(join(tmpdir(), "ddsctl-pgenv-")), PGPASSWORD: PASSWORD, PGOPTIONS: "-c statement_timeout=4321 --lock-timeout=1234", PGAPPNAME: "importer-7" };
    const app = await openApp({ location: `${url()}?lock_timeout=999`, env });
    try {
      const row = await app.store.sql.get<Record<string, string>>("SELECT current_setting('statement_timeout') AS st, current_setting('lock_timeout') AS lt, current_setting('application_name') AS app");
      expect(row).toEqual({ st: "4321ms", lt: "999ms", app: "importer-7" });
    } finally {
      await app.close();
      rmSync(env.HOME, { recursive: true, force: true });
    }
  });
});

describe("the PostgreSQL connection over TLS (sslmode, PGSSLMODE, PGSSLROOTCERT)", () => {
  let tls: PgCluster;
  let certs: string;
  beforeAll(async () => {
    // A CA and a server certificate for 127.0.0.1 and localhost, made here with openssl.
    certs = mkdtempSync(join(tmpdir(), "ddsctl-pgtls-"));
    const ssl = (...args: string[]) => execa("openssl", args, { cwd: certs });
    await ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=ddsctl test CA", "-keyout", "ca.key", "-out", "ca.crt");
    await ssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr");
    writeFileSync(join(certs, "san.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
    await ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.crt");
    chmodSync(join(certs, "server.key"), 0o600);
    // initdb refuses root; the server (run as postgres) must own its key.
    if (process.getuid?.() === 0) await execa("chown", ["-R", "postgres:postgres", certs]);
    await execa("chmod", ["755", certs]);
    tls = await startPostgres({ superuser: "postgres", password: "super", settings: ["ssl=on", `ssl_cert_file=${join(certs, "server.crt")}`, `ssl_key_file=${join(certs, "server.key")}`] });
    await tls.query("CREATE ROLE dds LOGIN PASSWORD 'pw'");
    await tls.query("CREATE DATABASE dds OWNER dds");
  }, 120_000);
  afterAll(async () => {
    await tls?.stop();
    if (certs) rmSync(certs, { recursive: true, force: true });
  });

  /** Whether the session of a store opened with `env` on `location` is encrypted. */
  const encrypted = async (location: string, env: Record<string, string>) => {
    const app = await openApp({ location, env: { HOME: certs, PGPASSWORD: "pw", ...env } });
    try {
      return (await app.store.sql.get<{ ssl: boolean }>("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"))?.ssl;
    } finally {
      await app.close();
    }
  };

  it("uses TLS when the server offers it (prefer, libpq's default), never with disable, and checks the certificate with verify-full", async () => {
    const base = `postgres://dds@localhost:${tls.port}/dds`;
    expect(await encrypted(base, {})).toBe(true);
    expect(await encrypted(base, { PGSSLMODE: "disable" })).toBe(false);
    expect(await encrypted(`${base}?sslmode=require`, { PGSSLMODE: "disable" })).toBe(true);
    expect(await encrypted(base, { PGSSLMODE: "verify-full", PGSSLROOTCERT: join(certs, "ca.crt") })).toBe(true);
    // A certificate its root does not vouch for is refused.
    await expect(encrypted(base, { PGSSLMODE: "verify-full", PGSSLROOTCERT: join(certs, "server.crt") })).rejects.toThrow();
    // verify-ca with no root certificate at all is a usage error that says what to give.
    await expect(encrypted(base, { PGSSLMODE: "verify-ca" })).rejects.toThrow(/no root certificate: give sslrootcert \(or PGSSLROOTCERT\)/);
  });
});
