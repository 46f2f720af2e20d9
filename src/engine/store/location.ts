import { errors } from "../../contract/errors.js";

/** True for a `postgres://` or `postgresql://` URL; anything else names a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * The URL with its password hidden, for banners and errors. Written over the text rather
 * than through `URL`, which refuses the multi-host form libpq reads
 * (`postgres://user:pw@h1:5432,h2:5432/dds`).
 */
export function redactUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0];
  if (!scheme) return url;
  const rest = url.slice(scheme.length);
  const slash = rest.search(/[/?#]/);
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const at = authority.lastIndexOf("@");
  const colon = authority.indexOf(":");
  if (at < 0 || colon < 0 || colon > at) return url;
  return `${scheme}${authority.slice(0, colon)}:***${rest.slice(at)}`;
}

const decode = (text: string, what: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    throw errors.usage(`the database URL's ${what} is not valid percent-encoding: ${text}`);
  }
};

/** The parts of a `postgres://` URL as libpq reads them (before defaults). */
export interface PgUrlParts {
  user?: string;
  password?: string;
  /** `host[:port]` entries of the authority, in order (an empty host is a default one). */
  hosts: { host: string; port?: string }[];
  database?: string;
  params: Map<string, string>;
}

/** Splits a `postgres://` URL's text as libpq reads it (the multi-host form is no WHATWG URL); percent-escapes decoded. */
export function pgUrlParts(url: string): PgUrlParts {
  const rest = url.replace(/^postgres(ql)?:\/\//i, "");
  const q = rest.indexOf("?");
  const beforeQuery = q < 0 ? rest : rest.slice(0, q);
  const query = q < 0 ? "" : rest.slice(q + 1).split("#")[0];
  const slash = beforeQuery.indexOf("/");
  const authority = slash < 0 ? beforeQuery : beforeQuery.slice(0, slash);
  const path = slash < 0 ? "" : beforeQuery.slice(slash + 1);
  const at = authority.lastIndexOf("@");
  const userinfo = at < 0 ? undefined : authority.slice(0, at);
  const hostspec = at < 0 ? authority : authority.slice(at + 1);
  const parts: PgUrlParts = { hosts: [], params: new Map() };
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(":");
    parts.user = decode(colon < 0 ? userinfo : userinfo.slice(0, colon), "user name") || undefined;
    if (colon >= 0) parts.password = decode(userinfo.slice(colon + 1), "password");
  }
  if (hostspec !== "") {
    for (const entry of hostspec.split(",")) {
      const m = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(entry)!;
      parts.hosts.push({ host: decode(m[1].replace(/^\[(.*)\]$/, "$1"), "host"), port: m[2] || undefined });
    }
  }
  if (path !== "") parts.database = decode(path, "database name");
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    parts.params.set(decode(eq < 0 ? pair : pair.slice(0, eq), "parameter"), decode(eq < 0 ? "" : pair.slice(eq + 1), "parameter"));
  }
  return parts;
}

/**
 * The URL to show for a database (banners, errors, logs): the URL with its password hidden,
 * and where it leaves out the host, the port, the user or the database, what libpq's
 * PGHOST, PGPORT, PGUSER and PGDATABASE in `env` give them (`postgres://` alone becomes
 * `postgres://dds@db.internal:5432/dds`), so a message says where it connected.
 */
export function displayPgUrl(url: string, env: Readonly<Record<string, string | undefined>> = {}): string {
  let parts: PgUrlParts;
  try {
    parts = pgUrlParts(url);
  } catch {
    return redactUrl(url);
  }
  const given = (v: string | undefined) => (v === undefined || v === "" ? undefined : v);
  const missing = parts.hosts.length === 0 || !parts.user || !parts.database;
  if (!missing) return redactUrl(url);
  const scheme = /^[a-z]+:\/\//i.exec(url)![0];
  const enc = (s: string) => encodeURIComponent(s).replace(/%2C/gi, ",");
  const user = parts.user ?? given(parts.params.get("user")) ?? given(env.PGUSER);
  const password = parts.password ? ":***" : "";
  const hostText = parts.hosts.length > 0 ? undefined : (given(parts.params.get("host")) ?? given(env.PGHOST));
  const portText = given(parts.params.get("port")) ?? given(env.PGPORT);
  const hosts =
    parts.hosts.length > 0
      ? parts.hosts.map((h) => `${h.host.includes(":") ? `[${h.host}]` : enc(h.host)}${h.port ? `:${h.port}` : ""}`).join(",")
      : (hostText ?? "localhost")
          .split(",")
          .map((h, i, all) => `${enc(h || "localhost")}:${portText?.split(",")[all.length > 1 ? i : 0] ?? "5432"}`)
          .join(",");
  const database = parts.database ?? given(parts.params.get("dbname")) ?? given(env.PGDATABASE) ?? user;
  const q = url.indexOf("?");
  return `${scheme}${user ? `${enc(user)}${password}@` : ""}${hosts}/${database ? enc(database) : ""}${q < 0 ? "" : url.slice(q)}`;
}
