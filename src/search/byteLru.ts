/**
 * A least-recently-used map bounded by the bytes of its values, for the per-worker caches of derived tables
 * (jump-point tables, directional tables) that clients can otherwise grow without limit.
 *
 * @module
 */

/** A map whose entries carry a byte size; past {@link limit} bytes the least recently used go first. */
export class ByteLru<K, V> {
  /** The byte bound. */
  limit: number;
  readonly #entries = new Map<K, { value: V; bytes: number }>();
  readonly #onEvict: ((key: K, value: V) => void) | null;
  #bytes = 0;

  /** An empty cache of at most `limit` bytes; `onEvict` hears about every entry pushed out. */
  constructor(limit: number, onEvict: ((key: K, value: V) => void) | null = null) {
    this.limit = limit;
    this.#onEvict = onEvict;
  }

  /** The value for `key` (and marks it most recently used), or undefined. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /**
   * Stores `value` under `key` as the most recently used entry with its size, then evicts least recently
   * used entries until the cache is within its bound (never the entry just stored, even if it alone is larger).
   */
  set(key: K, value: V, bytes: number): void {
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#bytes -= old.bytes;
      this.#entries.delete(key);
    }
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [k, entry] of this.#entries) {
      if (this.#bytes <= this.limit || k === key) break;
      this.#entries.delete(k);
      this.#bytes -= entry.bytes;
      this.#onEvict?.(k, entry.value);
    }
  }

  /** Removes `key` if present (without the eviction callback); returns whether it was there. */
  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    return true;
  }

  /** Drops every entry (without eviction callbacks). */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }
}
