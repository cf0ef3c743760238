/**
 * The flat storage of the reservation table's moving samples (motion/reservations.ts): every sample's fields in
 * typed arrays indexed by a pooled slot (freed slots reused), chained in time-slice-and-cell buckets (an
 * open-addressing hash of (slice, cell) to the bucket's first and last slot), with an occupancy filter per slice
 * read before the hash. Adding a sample writes a few array cells and allocates nothing; a bucket keeps its
 * samples in the order they were linked, so queries meet them in the same order as before. Pure.
 *
 * @module
 */

/**
 * Bits per time slice in the occupancy filter: a cell's bit (hashed) is set once a bucket is made for it at that
 * slice, so a query reads one word before probing the hash (most nearby cells hold nothing).
 */
const OCC_BITS = 2048;
/** Words per slice in the occupancy filter. */
export const OCC_WORDS = OCC_BITS / 32;

/** A cell's bit in its slice's occupancy filter (a multiplicative hash: big maps' rows do not alias). */
export function occBit(cell: number): number {
  return Math.imul(cell, 0x9e3779b1) >>> 21;
}

/** The slice number of a free place in the bucket hash (no sample has it). */
const EMPTY = -0x80000000;

/** Moving samples in pooled slots, chained per (time slice, cell) bucket. */
export class SampleStore {
  /** Sample fields by slot: position, disc radius, speed margin, slice, cell, owner (entry slot), next in bucket. */
  x = new Float64Array(1024);
  y = new Float64Array(1024);
  r = new Float64Array(1024);
  v = new Float64Array(1024);
  k = new Int32Array(1024);
  cell = new Int32Array(1024);
  owner = new Int32Array(1024);
  next = new Int32Array(1024);
  /** Slots ever used (the high-water mark) and the freed ones to reuse first. */
  #used = 0;
  #free = new Int32Array(64);
  #freeCount = 0;
  /**
   * Bucket hash, four words a bucket (one cache line for a probe): slice (EMPTY: no bucket), cell, first and last
   * slot (-1: none); linear probing, at most half full.
   */
  #tab = new Int32Array(4 << 12).fill(EMPTY);
  #buckets = 0;
  /** The bucket last linked to (consecutive samples of an add often share one), its slice and cell. */
  #lastH = -1;
  #lastK = EMPTY;
  #lastCell = -1;
  /** Per slice, OCC_WORDS words: the cells (hashed) that ever had a bucket at it (never cleared). */
  occupied = new Uint32Array(0);

  /** A free slot for a sample (grown as needed); its fields are the caller's to write. */
  alloc(): number {
    if (this.#freeCount > 0) return this.#free[--this.#freeCount];
    if (this.#used === this.x.length) this.#grow();
    return this.#used++;
  }

  /** Gives a slot back (it must not be linked in a bucket). */
  release(s: number): void {
    if (this.#freeCount === this.#free.length) {
      const grown = new Int32Array(2 * this.#free.length);
      grown.set(this.#free);
      this.#free = grown;
    }
    this.#free[this.#freeCount++] = s;
  }

  #grow(): void {
    const n = 2 * this.x.length;
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(n);
      b.set(a);
      return b;
    };
    const i32 = (a: Int32Array) => {
      const b = new Int32Array(n);
      b.set(a);
      return b;
    };
    this.x = f64(this.x);
    this.y = f64(this.y);
    this.r = f64(this.r);
    this.v = f64(this.v);
    this.k = i32(this.k);
    this.cell = i32(this.cell);
    this.owner = i32(this.owner);
    this.next = i32(this.next);
  }

  /** The hash position (word index) of slice `k`, cell `cell`: its bucket, or the empty place where it would go. */
  #find(k: number, cell: number): number {
    const tab = this.#tab, mask = tab.length - 4;
    let h = (Math.imul(k, 0x9e3779b1) ^ Math.imul(cell, 0x85ebca6b)) >>> 0;
    h = ((h ^ (h >>> 15)) << 2) & mask;
    for (;;) {
      const bk = tab[h];
      if (bk === EMPTY || (bk === k && tab[h + 1] === cell)) return h;
      h = (h + 4) & mask;
    }
  }

  /** The first slot in the bucket of slice `k`, cell `cell` (-1: none). */
  first(k: number, cell: number): number {
    const h = this.#find(k, cell);
    return this.#tab[h] === EMPTY ? -1 : this.#tab[h + 2];
  }

  /** Appends slot `s` (its k and cell written) to its bucket's chain. */
  link(s: number): void {
    const k = this.k[s], cell = this.cell[s];
    let h = k === this.#lastK && cell === this.#lastCell ? this.#lastH : this.#find(k, cell);
    let tab = this.#tab;
    if (tab[h] === EMPTY) {
      if (8 * (this.#buckets + 1) > tab.length) {
        this.#rehash();
        tab = this.#tab;
        h = this.#find(k, cell);
      }
      tab[h] = k;
      tab[h + 1] = cell;
      tab[h + 2] = tab[h + 3] = -1;
      this.#buckets++;
      this.#occupy(k, cell);
    }
    this.#lastH = h;
    this.#lastK = k;
    this.#lastCell = cell;
    this.next[s] = -1;
    if (tab[h + 3] < 0) tab[h + 2] = s;
    else this.next[tab[h + 3]] = s;
    tab[h + 3] = s;
  }

  /** Doubles the bucket hash (chains kept as they are). */
  #rehash(): void {
    const old = this.#tab;
    this.#tab = new Int32Array(2 * old.length).fill(EMPTY);
    for (let i = 0; i < old.length; i += 4) {
      if (old[i] === EMPTY) continue;
      const h = this.#find(old[i], old[i + 1]);
      this.#tab.set(old.subarray(i, i + 4), h);
    }
    this.#lastK = EMPTY;
  }

  /** Marks `cell` as holding a bucket at slice `k` (grows the filter as slices are added). */
  #occupy(k: number, cell: number): void {
    const need = (k + 1) * OCC_WORDS;
    if (need > this.occupied.length) {
      const grown = new Uint32Array(Math.max(need, 2 * this.occupied.length));
      grown.set(this.occupied);
      this.occupied = grown;
    }
    const b = occBit(cell);
    this.occupied[k * OCC_WORDS + (b >>> 5)] |= 1 << (b & 31);
  }

  /**
   * Unlinks, in every bucket, the slots `dead(s)` says to drop (keeping the others' order) and releases them.
   */
  unlinkWhere(dead: (s: number) => boolean): void {
    const tab = this.#tab;
    for (let h = 0; h < tab.length; h += 4) {
      if (tab[h] === EMPTY) continue;
      let prev = -1;
      for (let s = tab[h + 2]; s >= 0;) {
        const nx = this.next[s];
        if (dead(s)) {
          if (prev < 0) tab[h + 2] = nx;
          else this.next[prev] = nx;
          this.release(s);
        } else prev = s;
        s = nx;
      }
      tab[h + 3] = prev;
    }
  }
}
