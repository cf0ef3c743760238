/**
 * An indexed binary min-heap of state ids for A*'s open list.
 *
 * Keys are not stored in the heap: they are read from the search workspace's `f` and `g` arrays, so a
 * decrease-key only rewrites `g`/`f` and sifts up. Order: smaller f first; on equal f, larger g first (the
 * deeper node is closer to the goal, so ties resolve toward finishing instead of widening the frontier).
 *
 * @module
 */

/** Initial item capacity; the storage doubles on demand, so this only avoids a few early regrowths. */
const INITIAL_CAPACITY = 1024;

/**
 * Binary min-heap over state ids with a position-per-state array for O(log n) decrease-key.
 * No allocation per operation; the item array grows by doubling when full.
 */
export class IndexedMinHeap {
  /** Heap-ordered state ids; only the first {@link size} entries are live. */
  items: Int32Array = new Int32Array(INITIAL_CAPACITY);
  /** Number of live entries. */
  size = 0;
  /** f per state (read-only here; owned by the workspace). */
  private f: Float64Array;
  /** g per state (read-only here; owned by the workspace). */
  private g: Float64Array;
  /** Heap position per state, -1 when not in the heap (written here; owned by the workspace). */
  private pos: Int32Array;

  /** Makes a heap reading keys from `f`/`g` and recording positions in `pos`. */
  constructor(f: Float64Array, g: Float64Array, pos: Int32Array) {
    this.f = f;
    this.g = g;
    this.pos = pos;
  }

  /** Points the heap at new key/position arrays (after the workspace grew). The heap must be empty. */
  bind(f: Float64Array, g: Float64Array, pos: Int32Array): void {
    this.f = f;
    this.g = g;
    this.pos = pos;
  }

  /** Empties the heap in O(1); stale `pos` entries are never read for states not pushed again. */
  clear(): void {
    this.size = 0;
  }

  /** Inserts a state whose `f`/`g` are already written. */
  push(state: number): void {
    if (this.size === this.items.length) this.grow();
    const i = this.size++;
    this.items[i] = state;
    this.pos[state] = i;
    this.siftUp(i);
  }

  /** Removes and returns the state with the smallest key; the heap must be non-empty. */
  pop(): number {
    const items = this.items;
    const top = items[0];
    this.pos[top] = -1;
    const last = items[--this.size];
    if (this.size > 0) {
      items[0] = last;
      this.pos[last] = 0;
      this.siftDown(0);
    }
    return top;
  }

  /** Restores order after the key of a state in the heap decreased. */
  decreased(state: number): void {
    this.siftUp(this.pos[state]);
  }

  /** True if a (in the heap) must come out before b: smaller f, then larger g. */
  private before(a: number, b: number): boolean {
    const fa = this.f[a];
    const fb = this.f[b];
    return fa < fb || (fa === fb && this.g[a] > this.g[b]);
  }

  private siftUp(i: number): void {
    const items = this.items;
    const pos = this.pos;
    const state = items[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      const ps = items[p];
      if (!this.before(state, ps)) break;
      items[i] = ps;
      pos[ps] = i;
      i = p;
    }
    items[i] = state;
    pos[state] = i;
  }

  private siftDown(i: number): void {
    const items = this.items;
    const pos = this.pos;
    const n = this.size;
    const state = items[i];
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      let cs = items[c];
      if (c + 1 < n) {
        const rs = items[c + 1];
        if (this.before(rs, cs)) {
          c++;
          cs = rs;
        }
      }
      if (!this.before(cs, state)) break;
      items[i] = cs;
      pos[cs] = i;
      i = c;
    }
    items[i] = state;
    pos[state] = i;
  }

  private grow(): void {
    const next = new Int32Array(this.items.length * 2);
    next.set(this.items);
    this.items = next;
  }
}
