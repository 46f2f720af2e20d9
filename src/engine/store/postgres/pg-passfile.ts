import { readFileSync, statSync } from "node:fs";

/**
 * libpq's password file (`~/.pgpass`, or the file `PGPASSFILE` or the URL's `passfile`
 * names), read as libpq reads it: one `hostname:port:database:username:password` a line,
 * `*` matching anything in the first four fields, `\` escaping a `:` or a `\`, `#` starting
 * a comment line, the first matching line winning. A file that group or others may read or
 * write, or that is not a plain file, is ignored (libpq warns and ignores it too).
 */

/** What the password of one connection is looked up by. */
export interface PassfileKey {
  /** The host as the connection names it: a name, an address, or a Unix socket folder. */
  host: string;
  port: number;
  database: string;
  user: string;
}

/** A password found, or why none was. */
export type PassfileAnswer =
  | { found: true; password: string; file: string; line: number }
  | { found: false; file: string; why: string };

/** The Unix socket folders libpq matches as `localhost` (its default; Debian's and upstream's). */
const DEFAULT_SOCKET_DIRS = new Set(["/var/run/postgresql", "/run/postgresql", "/tmp"]);

/**
 * libpq's `pwdfMatchesString`: the rest of `line` after a field at `from` that is `*` or
 * equals `token` (with `\` escapes), or -1 when it does not match.
 */
function matchField(line: string, from: number, token: string): number {
  if (line[from] === "*" && line[from + 1] === ":") return from + 2;
  let i = from;
  let t = 0;
  while (i < line.length) {
    let escaped = false;
    if (line[i] === "\\" && i + 1 < line.length) {
      i++;
      escaped = true;
    }
    if (line[i] === ":" && !escaped && t === token.length) return i + 1;
    if (t === token.length || line[i] !== token[t]) return -1;
    i++;
    t++;
  }
  return -1;
}

/** The password field from `from`: up to the first unescaped `:`, escapes removed. */
function passwordField(line: string, from: number): string {
  let out = "";
  for (let i = from; i < line.length && line[i] !== ":"; i++) {
    if (line[i] === "\\" && i + 1 < line.length) i++;
    out += line[i];
  }
  return out;
}

/** The password of `key` in the text of a password file, with its line number (1-based), or undefined. */
export function findInPassfile(text: string, key: PassfileKey): { password: string; line: number } | undefined {
  // 'localhost' matches an empty host and the default socket folder, as in libpq.
  const host = key.host === "" || DEFAULT_SOCKET_DIRS.has(key.host.replace(/\/+$/, "")) ? "localhost" : key.host;
  const fields = [host, String(key.port), key.database, key.user];
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].replace(/\r$/, "");
    if (line === "" || line.startsWith("#")) continue;
    let at = 0;
    for (const field of fields) {
      at = matchField(line, at, field);
      if (at < 0) break;
    }
    if (at >= 0) return { password: passwordField(line, at), line: n + 1 };
  }
  return undefined;
}

/** Looks `key` up in the password file at `file`, refusing a file others may read as libpq does. */
export function readPassfile(file: string, key: PassfileKey): PassfileAnswer {
  let text: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return { found: false, file, why: `${file} is not a plain file, so it was ignored` };
    if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
      return { found: false, file, why: `${file} was ignored: group or others may access it (chmod 0600 ${file}, as libpq requires)` };
    }
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { found: false, file, why: code === "ENOENT" ? `there is no ${file}` : `${file} cannot be read (${code ?? (err as Error).message})` };
  }
  const hit = findInPassfile(text, key);
  if (!hit) return { found: false, file, why: `${file} has no line for ${key.host}:${key.port}:${key.database}:${key.user}` };
  return { found: true, password: hit.password, file, line: hit.line };
}
