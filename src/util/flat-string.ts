/**
 * The same string, stored flat. V8 keeps a concatenation longer than 12 characters as a
 * rope (a tree of its pieces, 32 bytes a node) until something reads its characters; a
 * rope that lives a while (an id or a map key a write group holds, a row waiting for its
 * COPY) costs three to six times the memory of its text, and every young-generation
 * collection copies each of its nodes. Reading one character makes V8 flatten it in place
 * (measured: 200,000 held ids took 96 MB as ropes, 16 MB flat).
 */
export function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}
