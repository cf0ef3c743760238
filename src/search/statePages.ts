/**
 * Paged per-state bookkeeping for A* on big state spaces: memory follows the states a search touches, not the
 * state count. States are grouped in pages of {@link PAGE_SIZE} consecutive ids; the first time a search
 * touches a page it is given the next free page of slots in one pool of flat arrays (g, f, parent, stamps, heap
 * position), so the hot loop indexes typed arrays exactly as the flat workspace does, after one page-table
 * read. Slots carry the same generation stamps as the flat workspace, so a slot page is never cleared when it
 * is handed to another state page: its stale stamps never equal a later generation.
 *
 * Every search starts with no page mapped; the pool keeps its size (the largest recent search) and shrinks when
 * a search used less than a quarter of it, so what a worker holds between queries follows its searches.
 *
 * @module
 */

import type { IndexedMinHeap } from "./heap.ts";

/**
 * log2 of the states per page. 16 states is a short run of a map row: a jump-point search touches isolated
 * states all over the map, and smaller pages map fewer unused slots with them (tank, longest pair on the
 * 1024^2 city: pool 27 MB at 64-state pages, 16 MB at 16). Not measurably slower than 64 (long searches
 * 0.87-0.91x the flat loop's time, short ones 1.1-1.2x, noisy); the page table is 4 bytes per 16 states.
 */
export const PAGE_BITS = 4;
/** States per page. */
export const PAGE_SIZE = 1 << PAGE_BITS;
/** Mask of a state's offset in its page. */
export const PAGE_MASK = PAGE_SIZE - 1;

/** Searches per window of the pool's peak usage (the pool follows the peak of the last one or two windows). */
const PEAK_WINDOW = 16;

/** Smallest pool, in pages (64 KB of slots). */
const MIN_POOL_PAGES = 128;

/**
 * The page table and slot pool of a paged workspace. A state's slot is base[state >>> PAGE_BITS] + (state &
 * PAGE_MASK) when its page's base is not -1; slot page i holds the states of page owner[i].
 */
export class StatePages {
  /** Slot base per state page, -1 when the page is not mapped in the current search. */
  base: Int32Array = new Int32Array(0);
  /** State page per slot page (entries below {@link used} are live). */
  owner: Int32Array = new Int32Array(MIN_POOL_PAGES);
  /** Cost from the start(s) per slot. */
  g: Float64Array = new Float64Array(MIN_POOL_PAGES * PAGE_SIZE);
  /** g + heuristic per slot. */
  f: Float64Array = new Float64Array(MIN_POOL_PAGES * PAGE_SIZE);
  /** Predecessor state id per slot (-1 for starts). */
  parent: Int32Array = new Int32Array(MIN_POOL_PAGES * PAGE_SIZE);
  /** Generation in which the slot's state was first reached. */
  stamp: Uint32Array = new Uint32Array(MIN_POOL_PAGES * PAGE_SIZE);
  /** Generation in which the slot's state was expanded. */
  closed: Uint32Array = new Uint32Array(MIN_POOL_PAGES * PAGE_SIZE);
  /** Heap position per slot (the heap holds slots, not states). */
  heapPos: Int32Array = new Int32Array(MIN_POOL_PAGES * PAGE_SIZE);
  /** Slot pages mapped in the current search. */
  used = 0;
  /** Most pages mapped by one search in the current window of {@link PEAK_WINDOW} searches, and the last. */
  private windowPeak = 0;
  private lastPeak = 0;
  private windowCount = 0;
  /** The heap over slots, rebound whenever the pool is reallocated (it must be empty then or not in use). */
  private readonly heap: IndexedMinHeap;

  /** A pool whose heap positions `heap` records. */
  constructor(heap: IndexedMinHeap) {
    this.heap = heap;
    heap.bind(this.heapPos);
  }

  /** Makes room in the page table for `stateCount` states (new pages unmapped). */
  ensure(stateCount: number): void {
    const n = (stateCount + PAGE_MASK) >>> PAGE_BITS;
    if (n <= this.base.length) return;
    const base = new Int32Array(n).fill(-1);
    base.set(this.base);
    this.base = base;
  }

  /**
   * Unmaps the previous search's pages. The pool shrinks to 1.25x the most pages any of the last 16-32 searches
   * mapped when it is over twice that: a short search between long ones does not shrink it (regrowing by
   * doubling with copies cost short queries up to 1.4x their time when every search shrank it).
   */
  begin(): void {
    const base = this.base;
    const owner = this.owner;
    const used = this.used;
    for (let i = 0; i < used; i++) base[owner[i]] = -1;
    this.used = 0;
    this.windowPeak = Math.max(this.windowPeak, used);
    if (++this.windowCount === PEAK_WINDOW) {
      this.lastPeak = this.windowPeak;
      this.windowPeak = 0;
      this.windowCount = 0;
    }
    const peak = Math.max(this.lastPeak, this.windowPeak);
    const want = Math.max(MIN_POOL_PAGES, peak + (peak >> 2));
    if (this.owner.length > 2 * want) this.resize(want, 0);
  }

  /** Maps state page `p` to the next free slot page (growing the pool when full); returns its slot base. */
  map(p: number): number {
    // 1.5x growth: the pool a long search leaves behind is at most 1.5x what it mapped (2x held up to 30 MB for
    // a 15 MB search on the 1024^2 city); the copies stay amortised O(1) per page.
    if (this.used === this.owner.length) this.resize(this.used + (this.used >> 1), this.used);
    const i = this.used++;
    this.owner[i] = p;
    const b = i << PAGE_BITS;
    this.base[p] = b;
    return b;
  }

  /** Reallocates the pool to `pages` slot pages, keeping the first `keep` (fresh slots have stamp 0). */
  private resize(pages: number, keep: number): void {
    const n = pages << PAGE_BITS;
    const k = keep << PAGE_BITS;
    const owner = new Int32Array(pages);
    owner.set(this.owner.subarray(0, keep));
    this.owner = owner;
    const g = new Float64Array(n);
    g.set(this.g.subarray(0, k));
    this.g = g;
    const f = new Float64Array(n);
    f.set(this.f.subarray(0, k));
    this.f = f;
    const parent = new Int32Array(n);
    parent.set(this.parent.subarray(0, k));
    this.parent = parent;
    const stamp = new Uint32Array(n);
    stamp.set(this.stamp.subarray(0, k));
    this.stamp = stamp;
    const closed = new Uint32Array(n);
    closed.set(this.closed.subarray(0, k));
    this.closed = closed;
    const heapPos = new Int32Array(n);
    heapPos.set(this.heapPos.subarray(0, k));
    this.heapPos = heapPos;
    this.heap.bind(heapPos);
  }

  /**
   * Between searches (a worker gone idle): unmaps the last search's pages and, when the pool and page table
   * hold more than `keepBytes`, lets them go (the next search regrows them), so a worker does not keep a long
   * search's pool while it waits. Returns the bytes let go.
   */
  release(keepBytes: number): number {
    const before = this.bytes;
    if (before <= keepBytes) return 0;
    const base = this.base;
    for (let i = 0; i < this.used; i++) base[this.owner[i]] = -1;
    this.used = 0;
    this.windowPeak = this.lastPeak = this.windowCount = 0;
    if (this.base.byteLength > keepBytes / 2) this.base = new Int32Array(0);
    if (this.owner.length > MIN_POOL_PAGES) this.resize(MIN_POOL_PAGES, 0);
    return before - this.bytes;
  }

  /** Resets every stamp to 0 (on generation wrap-around). */
  clearStamps(): void {
    this.stamp.fill(0);
    this.closed.fill(0);
  }

  /** The slot of `state` in the current search, or -1 when its page is not mapped. */
  slotOf(state: number): number {
    const p = state >>> PAGE_BITS;
    if (p >= this.base.length) return -1;
    const b = this.base[p];
    return b < 0 ? -1 : b + (state & PAGE_MASK);
  }

  /** The state a slot holds. */
  stateOf(slot: number): number {
    return (this.owner[slot >>> PAGE_BITS] << PAGE_BITS) | (slot & PAGE_MASK);
  }

  /** Bytes of the pool and page table. */
  get bytes(): number {
    return this.base.byteLength + this.owner.byteLength + 32 * this.g.length;
  }
}
