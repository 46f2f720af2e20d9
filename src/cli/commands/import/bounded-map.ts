/**
 * A Map that forgets its oldest entries past `max`, so caches keyed by what a file names
 * (context names) stay bounded however many distinct names a huge import holds. A
 * forgotten entry only costs one more lookup.
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }
}
