/**
 * The studio's session key. `ddsctl studio` prints `http://127.0.0.1:PORT/#session=KEY`;
 * the fragment never reaches a server or a Referer. The key is kept in this origin's
 * localStorage (the origin includes the port, so two studios never share it) and taken
 * out of the address bar, so deep links copied from it carry no key.
 */
const STORAGE = "ddsctl-studio-session";

/** Reads the key from the address (once) or storage; null when the page has none. */
export function readSessionKey(): string | null {
  const m = /(?:^#|&)session=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (m) {
    localStorage.setItem(STORAGE, m[1]);
    history.replaceState(history.state, "", location.pathname + location.search);
    return m[1];
  }
  return localStorage.getItem(STORAGE);
}

/** Stores a key typed in by hand (the session notice offers it). */
export function saveSessionKey(key: string): void {
  localStorage.setItem(STORAGE, key.trim().replace(/^.*#session=/, ""));
}
