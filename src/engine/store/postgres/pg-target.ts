import { existsSync, readFileSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { join } from "node:path";
import type { ConnectionOptions } from "node:tls";
import { errors } from "../../../contract/errors.js";
import { readPassfile, type PassfileAnswer } from "./pg-passfile.js";
import { parsePgUrl } from "./pg-url.js";
import { pgUrlParts } from "../location.js";

/**
 * Where a `postgres://` URL connects, read as libpq reads a connection URI with its
 * environment: what the URL leaves out comes from `PGHOST`, `PGPORT`, `PGUSER`,
 * `PGDATABASE`, `PGPASSWORD`, `PGPASSFILE` (else `~/.pgpass`), `PGSSLMODE`, `PGSSLROOTCERT`,
 * `PGSSLCERT`, `PGSSLKEY`, `PGCONNECT_TIMEOUT`, `PGAPPNAME`, `PGTARGETSESSIONATTRS` and
 * `PGOPTIONS`, then libpq's defaults. The environment is the application's (given, never
 * `process.env`), and the driver is handed every value, so it reads none of its own.
 * docs/deployment.md ("Where a command runs") lists what is read.
 */

/** Read for the connection: the PG* variables and HOME (for ~/.pgpass and ~/.postgresql/). */
export type PgEnv = Readonly<Record<string, string | undefined>>;

/** The TLS setting the driver takes: off, try it (falling back to plain), or these options. */
export type PgSsl = false | "prefer" | ConnectionOptions;

/** A connection target: what every connection of a store is opened with. */
export interface PgTarget {
  hosts: string[];
  ports: number[];
  /** A Unix socket (the host is a folder): the socket file's path. */
  socket?: string;
  user: string;
  database: string;
  ssl: PgSsl;
  targetSessionAttrs?: string;
  /** Seconds a connection may take to be made (the URL's connect_timeout, PGCONNECT_TIMEOUT), if set. */
  connectTimeoutS?: number;
  /** Server settings every session starts with: PGOPTIONS', then the URL's parameters over them. */
  settings: Record<string, string>;
  /** `application_name`: the URL's, PGAPPNAME, the URL's fallback_application_name, else ddsctl. */
  applicationName: string;
  /** The driver's own options set in the URL (`prepare=false`, `keep_alive=…`), as the driver reads them. */
  driverOptions: Record<string, unknown>;
  poolSize?: number;
  poolTimeoutMs?: number;
  /** The password of a connection to `host:port`: the URL's, PGPASSWORD, else the password file's. */
  password(host?: string, port?: number): string;
  /** Where the last password came from, or why none was found: said when the server refuses the login. */
  passwordNote(): string | undefined;
}

/** libpq parameters the URL may carry that are read here, never sent to the server. */
const CLIENT_PARAMS = new Set([
  "host",
  "port",
  "user",
  "password",
  "dbname",
  "passfile",
  "sslmode",
  "sslrootcert",
  "sslcert",
  "sslkey",
  "sslsni",
  "connect_timeout",
  "target_session_attrs",
  "options",
  "application_name",
  "fallback_application_name",
]);

/** libpq parameters this driver cannot honour: refused, rather than sent to the server as settings it does not know. */
const UNSUPPORTED_PARAMS = new Set([
  "service",
  "hostaddr",
  "gssencmode",
  "krbsrvname",
  "gsslib",
  "requirepeer",
  "sslcrl",
  "sslcrldir",
  "sslpassword",
  "sslcompression",
  "ssl_min_protocol_version",
  "ssl_max_protocol_version",
  "channel_binding",
  "load_balance_hosts",
  "keepalives",
  "keepalives_idle",
  "keepalives_interval",
  "keepalives_count",
  "tcp_user_timeout",
  "replication",
  "requiressl",
]);

/** The driver's own URL parameters (not libpq's), kept as the driver reads them. */
const DRIVER_PARAMS = new Set(["max_lifetime", "max_pipeline", "backoff", "keep_alive", "prepare", "fetch_types", "ssl"]);
const DRIVER_INTS = new Set(["max_lifetime", "max_pipeline", "backoff", "keep_alive"]);

const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] as const;
type SslMode = (typeof SSL_MODES)[number];
const SESSION_ATTRS = ["any", "read-write", "read-only", "primary", "standby", "prefer-standby"];

/** A port's text as a number, refused when it is none. */
function portOf(text: string, source: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 65535) throw errors.usage(`${source}: "${text}" is not a port (1 to 65535)`);
  return n;
}

/** PGOPTIONS (or the URL's options): the `-c name=value` (or `--name=value`) settings it holds. */
function commandLineOptions(text: string, source: string): Record<string, string> {
  // Words split on unescaped spaces, a backslash keeping the next character (libpq's rule).
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\" && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  const settings: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    let setting: string | undefined;
    if (words[i] === "-c") setting = words[++i];
    else if (words[i].startsWith("-c")) setting = words[i].slice(2);
    else if (words[i].startsWith("--")) setting = words[i].slice(2);
    const eq = setting?.indexOf("=") ?? -1;
    if (!setting || eq <= 0) throw errors.usage(`${source}: "${text}" holds something other than -c name=value settings, which is all ddsctl passes on`);
    settings[setting.slice(0, eq).replace(/-/g, "_")] = setting.slice(eq + 1);
  }
  return settings;
}

/** The file at `path` (for TLS), refused with the setting that named it when it cannot be read. */
function readTlsFile(path: string, source: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw errors.usage(`${source}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/**
 * The TLS options of `sslmode`, libpq's way: `disable` none; `allow` and `prefer` try TLS
 * without checking the certificate and fall back to plain (the driver cannot try plain
 * first, which is what `allow` would); `require` insists on TLS, and checks the server's
 * certificate against a root certificate when one is given or `~/.postgresql/root.crt`
 * exists; `verify-ca` checks the certificate's chain, `verify-full` also its host name.
 * `sslrootcert=system` trusts the system's roots (and implies verify-full). A client
 * certificate is `sslcert`/`sslkey`, else `~/.postgresql/postgresql.crt` and `.key`.
 */
function tlsOf(mode: SslMode, files: { root?: string; cert?: string; key?: string }, home: string, sni: boolean): PgSsl {
  if (mode === "disable") return false;
  const dir = join(home, ".postgresql");
  const root = files.root ?? (existsSync(join(dir, "root.crt")) ? join(dir, "root.crt") : undefined);
  const certPath = files.cert ?? (existsSync(join(dir, "postgresql.crt")) ? join(dir, "postgresql.crt") : undefined);
  const keyPath = files.key ?? (certPath && existsSync(join(dir, "postgresql.key")) ? join(dir, "postgresql.key") : undefined);
  const client: ConnectionOptions = {};
  if (certPath) client.cert = readTlsFile(certPath, "sslcert");
  if (keyPath) client.key = readTlsFile(keyPath, "sslkey");
  const system = root === "system";
  const effective: SslMode = system ? "verify-full" : mode === "require" && root ? "verify-ca" : mode;
  if (effective === "allow" || effective === "prefer") return client.cert ? { ...client, rejectUnauthorized: false } : "prefer";
  if (effective === "require") return { ...client, rejectUnauthorized: false };
  if (!root) {
    throw errors.usage(
      `sslmode=${mode} checks the server's certificate, but there is no root certificate: give sslrootcert (or PGSSLROOTCERT) a file, or sslrootcert=system for the system's trusted roots, or create ${join(dir, "root.crt")}`,
    );
  }
  const ca = system ? {} : { ca: readTlsFile(root, "sslrootcert") };
  const checked: ConnectionOptions = { ...client, ...ca, rejectUnauthorized: true };
  if (effective === "verify-ca") checked.checkServerIdentity = () => undefined;
  if (!sni) checked.servername = "";
  return checked;
}

/**
 * Resolves `url` with `env` into a connection target (libpq's precedence: a value in the URL,
 * else its variable, else the default). A URL parameter libpq knows but this driver cannot
 * honour (`service`, `hostaddr`, GSSAPI, keepalives…) is a usage error rather than a server
 * setting the server would refuse.
 */
export function resolvePgTarget(url: string, env: PgEnv = {}): PgTarget {
  const own = parsePgUrl(url);
  const parts = pgUrlParts(own.driverUrl);
  const param = (name: string) => parts.params.get(name);
  for (const name of parts.params.keys()) {
    if (UNSUPPORTED_PARAMS.has(name)) throw errors.usage(`the database URL's ${name} is a libpq setting ddsctl's PostgreSQL driver does not support; leave it out`);
  }
  const set = (value: string | undefined) => (value === undefined || value === "" ? undefined : value);
  const home = set(env.HOME) ?? homedir();

  // Hosts and ports: the URL's authority, else its host/port parameters, else PGHOST/PGPORT.
  const hostText = parts.hosts.length > 0 ? undefined : (set(param("host")) ?? set(env.PGHOST));
  const hostEntries = parts.hosts.length > 0 ? parts.hosts : (hostText ?? "").split(",").map((host) => ({ host, port: undefined as string | undefined }));
  const portText = set(param("port")) ?? set(env.PGPORT);
  const portList = portText?.split(",") ?? [];
  if (portList.length > 1 && portList.length !== hostEntries.length) {
    throw errors.usage(`${param("port") ? "the database URL's port" : "PGPORT"} lists ${portList.length} ports for ${hostEntries.length} hosts`);
  }
  const defaultPort = (i: number) => portList[portList.length > 1 ? i : 0] || "5432";
  // libpq's default host is its Unix socket folder; ddsctl's driver connects to localhost instead.
  const hosts = hostEntries.map((h) => h.host || "localhost");
  const ports = hostEntries.map((h, i) => portOf(h.port ?? defaultPort(i), h.port ? "the database URL's port" : param("port") ? "the database URL's port" : "PGPORT"));
  const sockets = hosts.filter((h) => h.startsWith("/"));
  if (sockets.length > 0 && hosts.length > 1) throw errors.usage("a Unix socket folder as a host cannot be listed with other hosts");
  const socket = sockets.length > 0 ? `${hosts[0].replace(/\/+$/, "")}/.s.PGSQL.${ports[0]}` : undefined;

  const user = parts.user ?? set(param("user")) ?? set(env.PGUSER) ?? userInfo().username;
  const database = parts.database ?? set(param("dbname")) ?? set(env.PGDATABASE) ?? user;

  const modeText = set(param("sslmode")) ?? set(env.PGSSLMODE) ?? (env.PGREQUIRESSL === "1" ? "require" : "prefer");
  if (!(SSL_MODES as readonly string[]).includes(modeText)) throw errors.usage(`sslmode ${modeText} is not one of ${SSL_MODES.join(", ")}`);
  const sni = (set(param("sslsni")) ?? set(env.PGSSLSNI) ?? "1") !== "0";
  const ssl = socket
    ? false
    : param("ssl") !== undefined && param("sslmode") === undefined
      ? undefined
      : tlsOf(modeText as SslMode, { root: set(param("sslrootcert")) ?? set(env.PGSSLROOTCERT), cert: set(param("sslcert")) ?? set(env.PGSSLCERT), key: set(param("sslkey")) ?? set(env.PGSSLKEY) }, home, sni);

  const attrs = set(param("target_session_attrs")) ?? set(env.PGTARGETSESSIONATTRS);
  if (attrs !== undefined && !SESSION_ATTRS.includes(attrs)) throw errors.usage(`target_session_attrs ${attrs} is not one of ${SESSION_ATTRS.join(", ")}`);
  const timeoutText = set(param("connect_timeout")) ?? set(env.PGCONNECT_TIMEOUT);
  const connectTimeoutS = timeoutText === undefined ? undefined : Number(timeoutText);
  if (connectTimeoutS !== undefined && !(Number.isInteger(connectTimeoutS) && connectTimeoutS >= 0)) throw errors.usage(`connect_timeout ${timeoutText} must be a whole number of seconds`);

  const settings: Record<string, string> = {};
  const optionsText = param("options") ?? set(env.PGOPTIONS);
  if (optionsText) Object.assign(settings, commandLineOptions(optionsText, param("options") ? "the database URL's options" : "PGOPTIONS"));
  const driverOptions: Record<string, unknown> = {};
  for (const [name, value] of parts.params) {
    if (CLIENT_PARAMS.has(name)) continue;
    if (DRIVER_PARAMS.has(name)) driverOptions[name] = value === "disable" || value === "false" ? false : DRIVER_INTS.has(name) ? Number(value) : value;
    else settings[name] = value;
  }
  if (ssl !== undefined) driverOptions.ssl = ssl;
  const applicationName = set(param("application_name")) ?? set(env.PGAPPNAME) ?? set(param("fallback_application_name")) ?? "ddsctl";

  // The password: the URL's, else PGPASSWORD, else the password file's line for this host.
  const given = parts.password !== undefined && parts.password !== "" ? parts.password : (set(param("password")) ?? set(env.PGPASSWORD));
  const passfile = set(param("passfile")) ?? set(env.PGPASSFILE) ?? join(home, ".pgpass");
  const shown = passfile.startsWith(`${home}/`) && !set(param("passfile")) && !set(env.PGPASSFILE) ? `~/${passfile.slice(home.length + 1)}` : passfile;
  let last: PassfileAnswer | undefined;
  let lastSource: string | undefined;
  return {
    hosts,
    ports,
    ...(socket ? { socket } : {}),
    user,
    database,
    ssl: (ssl ?? false) as PgSsl,
    ...(attrs && attrs !== "any" ? { targetSessionAttrs: attrs } : {}),
    ...(connectTimeoutS !== undefined ? { connectTimeoutS } : {}),
    settings,
    applicationName,
    driverOptions,
    ...(own.poolSize !== undefined ? { poolSize: own.poolSize } : {}),
    ...(own.poolTimeoutMs !== undefined ? { poolTimeoutMs: own.poolTimeoutMs } : {}),
    password(host = hosts[0], port = ports[0]) {
      if (given !== undefined) {
        lastSource = parts.password ? "the password in the URL" : param("password") ? "the URL's password parameter" : "the password in PGPASSWORD";
        return given;
      }
      last = readPassfile(passfile, { host, port, database, user });
      lastSource = undefined;
      return last.found ? last.password : "";
    },
    passwordNote() {
      if (lastSource) return `with ${lastSource}`;
      if (!last) return undefined;
      if (last.found) return `with the password of ${shown} line ${last.line}`;
      return `no password was given: none in the URL, PGPASSWORD is not set, and ${last.why.split(last.file).join(shown)}`;
    },
  };
}
