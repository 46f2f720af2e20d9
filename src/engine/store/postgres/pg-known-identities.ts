/** Identities a store knows, at most (each costs it a few dozen bytes): past it, it stops knowing. */
const LIMIT = 500_000;

/** A context the store has seen without records, and every identity its write groups made in it since. */
interface Known {
  /** The context's evidence version after the store's last committed write to it. */
  version: number;
  /** Identity map keys (evidence-repo's identityMapKey) of the records made since. */
  identities: Set<string>;
}

/**
 * What a store's write groups know of contexts that only they have written to, so a
 * lookup of an identity made by none of them needs no query: an import binding new
 * records (every line of the record-heavy shape) would otherwise ask the database, once
 * per call, for records that do not exist.
 *
 * A context becomes known when a group sees it with no live record, and stays known while
 * its evidence version is the one the store's last commit left: every write of evidence,
 * by any node, bumps that version under the context's row lock (a record deleted too), so
 * a group that holds the lock and reads the version it expects knows the context's
 * records are its own. A version that moved (another writer) makes the context unknown
 * for good, as does any write of the evidence tables the store does not see row by row
 * (`clear`).
 */
export class KnownIdentities {
  private readonly contexts = new Map<number, Known>();
  private size = 0;
  private off = false;

  /**
   * A context as a group finds it under its lock: the identities made in it by earlier
   * groups when it is known at this version (a new empty set when it has no live record),
   * or undefined when its records may be anybody's.
   */
  check(context: number, version: number, used: boolean): Set<string> | undefined {
    if (this.off) return undefined;
    const known = this.contexts.get(context);
    if (known?.version === version) return known.identities;
    if (known) this.forget(context);
    return used ? undefined : new Set();
  }

  /**
   * A group committed: each context it checked (with the set `check` gave it) holds the
   * identities it made there too, at the version it left (`versions`, else the one checked).
   */
  commit(checked: ReadonlyMap<number, { version: number; identities: Set<string> }>, made: Iterable<[number, string]>, versions: ReadonlyMap<number, number>): void {
    if (this.off) return;
    for (const [context, mk] of made) {
      const entry = checked.get(context);
      if (entry && !entry.identities.has(mk)) {
        entry.identities.add(mk);
        this.size++;
      }
    }
    for (const [context, entry] of checked) this.contexts.set(context, { version: versions.get(context) ?? entry.version, identities: entry.identities });
    if (this.size > LIMIT) {
      this.clear();
      this.off = true;
    }
  }

  /** Nothing is known any more (the evidence tables were written some other way). */
  clear(): void {
    this.contexts.clear();
    this.size = 0;
  }

  private forget(context: number): void {
    this.size -= this.contexts.get(context)?.identities.size ?? 0;
    this.contexts.delete(context);
  }
}
