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
