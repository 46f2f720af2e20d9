/**
 * Values remembered while the store's change stamp (Store.changeStamp) stays the same: the
 * first call with another stamp forgets everything. Bounded: past `max` entries it starts
 * over, so a flood of distinct keys cannot grow it without limit.
 */
export class StampedCache<V> {
  private readonly map = new Map<string, V>();
  private stamp = "";

  constructor(private readonly max: number) {}

  /** The value remembered under `stamp`, or undefined (a new stamp empties the cache). */
  get(stamp: string, key: string): V | undefined {
    if (stamp !== this.stamp) {
      this.map.clear();
      this.stamp = stamp;
      return undefined;
    }
    return this.map.get(key);
  }

  /** Remembers a value read under `stamp`; ignored when the stamp has moved on since. */
  set(stamp: string, key: string, value: V): void {
    if (stamp !== this.stamp) return;
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(key, value);
  }
}
