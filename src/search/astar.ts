/**
 * The one A* core every planner uses (grid, directional, hierarchical): the node space is swapped, the loop is
 * not. Like Nav2 Smac Planner's templated A*, a {@link SearchSpace} supplies successors, costs, a heuristic and
 * the goal test; the core owns the open list, bookkeeping and limits.
 *
 * Costs are fixed-point integers ({@link COST_SCALE} units per tile) held in Float64Array, exact below 2^53.
 * Integer costs make equal f values compare exactly equal, so ties break reliably on larger g (deepest first);
 * with float costs, rounding noise turns most ties into arbitrary orderings and the search widens. Measured
 * on a C++ A* over these benchmark maps, exact ties halved the median search time on open maps.
 *
 * Bookkeeping lives in a reusable {@link SearchWorkspace}: arrays stamped with a generation per search, so
 * nothing is cleared between searches and nothing is allocated per node. Up to {@link PAGED_ABOVE} states they
 * are flat arrays over the state space; above it they are pages allocated as a search touches them
 * (statePages.ts), so a worker's memory follows its searches, not the map. Both loops below are the same
 * algorithm line for line (same expansions, costs and parents); the paged one only reaches a state's entries
 * through its page.
 *
 * @module
 */

import { IndexedMinHeap } from "./heap.ts";
import { PAGE_BITS, PAGE_MASK, StatePages } from "./statePages.ts";

/** Fixed-point units per tile of cost: edge costs and heuristics are integers in these units. */
export const COST_SCALE = 1 << 20;

/** Preallocated successor buffer a space writes into during {@link SearchSpace.expand}. */
export class Successors {
  /** Successor state ids. */
  readonly ids: Int32Array;
  /** Integer (fixed-point) edge costs, parallel to {@link ids}. */
  readonly costs: Float64Array;

  /** Allocates room for `capacity` successors. */
  constructor(capacity: number) {
    this.ids = new Int32Array(capacity);
    this.costs = new Float64Array(capacity);
  }
}

/** A graph the A* core can search. States are dense ids 0..stateCount-1. */
export interface SearchSpace {
  /** Number of states (ids are 0..stateCount-1). */
  readonly stateCount: number;
  /** Largest number of successors {@link expand} may write (sizes the shared {@link Successors} buffer). */
  readonly maxSuccessors: number;
  /**
   * Writes successor ids and integer edge costs into out; returns how many. `parent` is the state this one
   * was reached from (-1 for a start), so a space may order successors (e.g. straight runs first).
   */
  expand(state: number, out: Successors, parent: number): number;
  /** Admissible integer estimate of cost-to-goal. */
  heuristic(state: number): number;
  /** True if state satisfies the goal. */
  isGoal(state: number): boolean;
}

/** When to stop a search early. */
export interface SearchLimits {
  /** Stop with "budget" after this many expansions (Infinity for none). */
  maxExpansions: number;
  /** Stop with "deadline" once performance.now() passes this (Infinity for none). */
  deadline: number;
  /** Shared flag: a non-zero element 0 stops the search with "cancelled"; null for none. */
  cancel: Int32Array | null;
  /** Keep the expanded state with the smallest heuristic (for partial paths). */
  trackNearest: boolean;
  /**
   * Look only for paths cheaper than this (fixed point): the search ends "exhausted" once the smallest f
   * reaches it (with an admissible heuristic, no cheaper path is left). Default Infinity.
   */
  maxCost?: number;
}

/** Limits that never stop a search. */
export function unlimited(): SearchLimits {
  return { maxExpansions: Infinity, deadline: Infinity, cancel: null, trackNearest: false };
}

/** How a search ended. */
export type SearchStatus = "found" | "exhausted" | "budget" | "deadline" | "cancelled";

/** The outcome of {@link astar}; paths are read from the workspace with {@link reconstructPath}. */
export interface SearchResult {
  /** How the search ended. */
  status: SearchStatus;
  /** The goal state reached, or -1. */
  goal: number;
  /** Fixed-point cost of the path to {@link goal} (NaN when not found). */
  cost: number;
  /** Number of states expanded. */
  expansions: number;
  /** The state with the smallest heuristic seen (starts, plus expanded states when trackNearest), or -1. */
  best: number;
  /** The heuristic of {@link best} (Infinity if none). */
  bestH: number;
}

/** How often (in expansions, a power of two) the cancel flag and the deadline are polled. */
const POLL_MASK = 1023;

/**
 * Largest state count searched with flat arrays (512x512 tiles: 8 MB of flat bookkeeping at most); larger
 * spaces use pages. Flat arrays are the faster loop (no page lookup per state) and on small maps their memory
 * is small anyway.
 */
export const PAGED_ABOVE = 512 * 512;

/** Largest generation before the stamps are cleared (paged stamps are Int32). */
const MAX_GENERATION = 0x7ffffffe;

/**
 * Per-search bookkeeping, reused across searches, each state's entries valid only when its stamp equals the
 * current generation. Spaces of at most {@link pagedAbove} states use flat arrays sized to the largest such
 * space seen (the fields below); larger ones use {@link pages}, allocated as searches touch them. Read a search's
 * results with {@link reached}, {@link gOf} and {@link parentOf}, which work in both modes; the flat fields hold
 * the latest search only when {@link paged} is false.
 */
export class SearchWorkspace {
  /** Cost from the start(s), fixed point. */
  g: Float64Array = new Float64Array(0);
  /** g + heuristic, fixed point. */
  f: Float64Array = new Float64Array(0);
  /** Predecessor on the best known path (-1 for starts). */
  parent: Int32Array = new Int32Array(0);
  /** Generation in which the state was first reached. */
  stamp: Uint32Array = new Uint32Array(0);
  /** Generation in which the state was expanded. */
  closed: Uint32Array = new Uint32Array(0);
  /** Position in the open heap (-1 when not in it). */
  heapPos: Int32Array = new Int32Array(0);
  /** The open list. */
  readonly heap: IndexedMinHeap = new IndexedMinHeap(this.heapPos);
  /** The open list of paged searches (it holds slots of {@link pages}, not states). */
  readonly pagedHeap: IndexedMinHeap = new IndexedMinHeap(new Int32Array(0));
  /** Paged bookkeeping for spaces above {@link pagedAbove} states. */
  readonly pages: StatePages = new StatePages(this.pagedHeap);
  /** True when the latest search used {@link pages}. */
  paged = false;
  /** Largest state count kept in flat arrays (tests lower it to compare both modes on the same maps). */
  readonly pagedAbove: number;
  /** The successor buffer handed to spaces. */
  successors: Successors = new Successors(8);
  /** Current generation (stamps equal to it are live). */
  generation = 0;

  /** A workspace with flat arrays up to `pagedAbove` states and pages above. */
  constructor(pagedAbove: number = PAGED_ABOVE) {
    this.pagedAbove = pagedAbove;
  }

  /**
   * Makes sure the bookkeeping holds `stateCount` states (choosing flat arrays or pages) and the successor
   * buffer `maxSuccessors` entries.
   */
  ensure(stateCount: number, maxSuccessors: number): void {
    this.paged = stateCount > this.pagedAbove;
    if (this.paged) this.pages.ensure(stateCount);
    else if (stateCount > this.g.length) {
      // Grow generously so a sequence of slightly larger maps does not reallocate each time.
      const n = Math.min(this.pagedAbove, Math.max(stateCount, Math.min(this.g.length * 2, stateCount * 2)));
      this.g = new Float64Array(n);
      this.f = new Float64Array(n);
      this.parent = new Int32Array(n);
      this.stamp = new Uint32Array(n);
      this.closed = new Uint32Array(n);
      this.heapPos = new Int32Array(n);
      this.heap.bind(this.heapPos);
      // Fresh zeroed stamps: stale pages keep older stamps, so generations go on (no stale stamp can match).
    }
    if (maxSuccessors > this.successors.ids.length) this.successors = new Successors(maxSuccessors);
  }

  /**
   * Lets go of bookkeeping above `keepBytes` between searches (a worker gone idle; see planning/scratch.ts):
   * flat arrays and the page pool regrow on the next search that needs them. Returns the bytes let go.
   */
  release(keepBytes: number): number {
    let freed = this.pages.release(keepBytes) + this.heap.release(keepBytes) +
      this.pagedHeap.release(keepBytes);
    const flat = 32 * this.g.length;
    if (flat > keepBytes) {
      this.g = new Float64Array(0);
      this.f = new Float64Array(0);
      this.parent = new Int32Array(0);
      this.stamp = new Uint32Array(0);
      this.closed = new Uint32Array(0);
      this.heapPos = new Int32Array(0);
      this.heap.bind(this.heapPos);
      freed += flat;
    }
    return freed;
  }

  /** Starts a new generation; on wrap-around the stamps are cleared once. */
  nextGeneration(): number {
    if (this.generation >= MAX_GENERATION) {
      this.stamp.fill(0);
      this.closed.fill(0);
      this.pages.clearStamps();
      this.generation = 0;
    }
    if (this.paged) this.pages.begin();
    return ++this.generation;
  }

  /** True if `state` was reached in the latest search. */
  reached(state: number): boolean {
    if (state < 0) return false;
    if (this.paged) {
      const x = this.pages.slotOf(state);
      return x >= 0 && this.pages.stamp[x] === this.generation;
    }
    return state < this.stamp.length && this.stamp[state] === this.generation;
  }

  /** Cost from the start(s) to `state` in the latest search (Infinity if it was not reached). */
  gOf(state: number): number {
    if (!this.reached(state)) return Infinity;
    return this.paged ? this.pages.g[this.pages.slotOf(state)] : this.g[state];
  }

  /** Predecessor of a reached `state` in the latest search (-1 for starts and states not reached). */
  parentOf(state: number): number {
    if (!this.reached(state)) return -1;
    return this.paged ? this.pages.parent[this.pages.slotOf(state)] : this.parent[state];
  }
}

/** Returns a fresh result object (pass one to {@link astar} to reuse it across searches). */
export function newSearchResult(): SearchResult {
  return { status: "exhausted", goal: -1, cost: NaN, expansions: 0, best: -1, bestH: Infinity };
}

/**
 * A* from one or more starts (each with g = 0) until a goal state is expanded or a limit stops it.
 * With a consistent heuristic the first goal expanded is optimal; states improved after expansion (only with
 * an inconsistent heuristic) are reopened, so optimality holds for any admissible one.
 */
export function astar(
  space: SearchSpace,
  ws: SearchWorkspace,
  starts: ArrayLike<number>,
  limits: SearchLimits,
  out: SearchResult = newSearchResult(),
): SearchResult {
  ws.ensure(space.stateCount, space.maxSuccessors);
  const gen = ws.nextGeneration();
  if (ws.paged) return astarPaged(space, ws, gen, starts, limits, out);
  const g = ws.g;
  const f = ws.f;
  const parent = ws.parent;
  const stamp = ws.stamp;
  const closed = ws.closed;
  const heap = ws.heap;
  const succ = ws.successors;
  const succIds = succ.ids;
  const succCosts = succ.costs;
  heap.clear();

  let best = -1;
  let bestH = Infinity;
  let bestG = Infinity;
  for (let i = 0; i < starts.length; i++) {
    const s = starts[i];
    if (stamp[s] === gen) continue;
    stamp[s] = gen;
    const h = space.heuristic(s);
    g[s] = 0;
    f[s] = h;
    parent[s] = -1;
    heap.push(s, h, 0);
    if (h < bestH) {
      best = s;
      bestH = h;
      bestG = 0;
    }
  }

  const maxExpansions = limits.maxExpansions;
  const deadline = limits.deadline;
  const cancel = limits.cancel;
  const trackNearest = limits.trackNearest;
  const maxCost = limits.maxCost ?? Infinity;
  let expansions = 0;
  let status: SearchStatus = "exhausted";
  let goal = -1;

  // `next` is a state taken straight from the last expansion's successors when it would have been the heap's
  // next pop anyway (its key beats the top): skipping that push + pop saves two full-depth heap walks. Still
  // exact A* order. Measured on the shared Moving AI set: 2-25% of pops skipped per map, ~13% less time.
  let next = -1;
  while (next >= 0 || heap.size > 0) {
    if ((expansions & POLL_MASK) === 0) {
      if (cancel !== null && Atomics.load(cancel, 0) !== 0) {
        status = "cancelled";
        break;
      }
      if (deadline !== Infinity && performance.now() > deadline) {
        status = "deadline";
        break;
      }
    }
    if (expansions >= maxExpansions) {
      status = "budget";
      break;
    }
    let s: number;
    if (next >= 0) {
      s = next;
      next = -1;
    } else {
      s = heap.pop();
    }
    if (f[s] >= maxCost) break;
    closed[s] = gen;
    if (space.isGoal(s)) {
      status = "found";
      goal = s;
      break;
    }
    expansions++;
    const gs = g[s];
    if (trackNearest) {
      const h = f[s] - gs;
      if (h < bestH || (h === bestH && gs < bestG)) {
        best = s;
        bestH = h;
        bestG = gs;
      }
    }
    const n = space.expand(s, succ, parent[s]);
    // The best newly reached successor is held back from the heap until the loop ends.
    let cand = -1;
    let candF = 0;
    let candG = 0;
    for (let i = 0; i < n; i++) {
      const t = succIds[i];
      const ng = gs + succCosts[i];
      if (stamp[t] !== gen) {
        stamp[t] = gen;
        g[t] = ng;
        const ft = ng + space.heuristic(t);
        f[t] = ft;
        parent[t] = s;
        if (cand < 0) {
          cand = t;
          candF = ft;
          candG = ng;
        } else if (ft < candF || (ft === candF && ng > candG)) {
          heap.push(cand, candF, candG);
          cand = t;
          candF = ft;
          candG = ng;
        } else {
          heap.push(t, ft, ng);
        }
      } else if (ng < g[t]) {
        // h = f - g exactly (integers), so no heuristic call on improvement.
        const ft = f[t] - g[t] + ng;
        f[t] = ft;
        g[t] = ng;
        parent[t] = s;
        if (t === cand) {
          // A space may list a state twice in one expansion: the held-back candidate is not in the heap.
          candF = ft;
          candG = ng;
        } else if (closed[t] === gen) {
          closed[t] = 0;
          heap.push(t, ft, ng);
        } else {
          heap.decrease(t, ft, ng);
        }
      }
    }
    if (cand >= 0) {
      const keys = heap.keys;
      if (heap.size === 0 || candF < keys[0] || (candF === keys[0] && candG >= keys[1])) {
        ws.heapPos[cand] = -1;
        next = cand;
      } else {
        heap.push(cand, candF, candG);
      }
    }
  }

  if (status === "found" && goal >= 0) {
    best = goal;
    bestH = 0;
  }
  out.status = status;
  out.goal = goal;
  out.cost = goal >= 0 ? g[goal] : NaN;
  out.expansions = expansions;
  out.best = best;
  out.bestH = bestH;
  return out;
}

/**
 * {@link astar}'s loop over a paged workspace: the same statements in the same order on slots instead of state
 * ids (a state's slot is found through the page table, mapped on first touch); the heap holds slots, parents
 * and results are states. The heap's order depends on keys only, so pops are the flat loop's.
 */
function astarPaged(
  space: SearchSpace,
  ws: SearchWorkspace,
  gen: number,
  starts: ArrayLike<number>,
  limits: SearchLimits,
  out: SearchResult,
): SearchResult {
  const pages = ws.pages;
  const base = pages.base;
  // Pool arrays: reloaded after a map() that grew the pool.
  let g = pages.g;
  let f = pages.f;
  let parent = pages.parent;
  let stamp = pages.stamp;
  let closed = pages.closed;
  let owner = pages.owner;
  const heap = ws.pagedHeap;
  const succ = ws.successors;
  const succIds = succ.ids;
  const succCosts = succ.costs;
  heap.clear();

  let best = -1;
  let bestH = Infinity;
  let bestG = Infinity;
  for (let i = 0; i < starts.length; i++) {
    const s = starts[i];
    let b = base[s >>> PAGE_BITS];
    if (b < 0) {
      b = pages.map(s >>> PAGE_BITS);
      if (pages.g !== g) {
        g = pages.g;
        f = pages.f;
        parent = pages.parent;
        stamp = pages.stamp;
        closed = pages.closed;
        owner = pages.owner;
      }
    }
    const x = b + (s & PAGE_MASK);
    if (stamp[x] === gen) continue;
    stamp[x] = gen;
    const h = space.heuristic(s);
    g[x] = 0;
    f[x] = h;
    parent[x] = -1;
    heap.push(x, h, 0);
    if (h < bestH) {
      best = s;
      bestH = h;
      bestG = 0;
    }
  }

  const maxExpansions = limits.maxExpansions;
  const deadline = limits.deadline;
  const cancel = limits.cancel;
  const trackNearest = limits.trackNearest;
  const maxCost = limits.maxCost ?? Infinity;
  let expansions = 0;
  let status: SearchStatus = "exhausted";
  let goal = -1;
  let goalSlot = -1;

  let next = -1;
  while (next >= 0 || heap.size > 0) {
    if ((expansions & POLL_MASK) === 0) {
      if (cancel !== null && Atomics.load(cancel, 0) !== 0) {
        status = "cancelled";
        break;
      }
      if (deadline !== Infinity && performance.now() > deadline) {
        status = "deadline";
        break;
      }
    }
    if (expansions >= maxExpansions) {
      status = "budget";
      break;
    }
    let xs: number;
    if (next >= 0) {
      xs = next;
      next = -1;
    } else {
      xs = heap.pop();
    }
    if (f[xs] >= maxCost) break;
    closed[xs] = gen;
    const s = (owner[xs >>> PAGE_BITS] << PAGE_BITS) | (xs & PAGE_MASK);
    if (space.isGoal(s)) {
      status = "found";
      goal = s;
      goalSlot = xs;
      break;
    }
    expansions++;
    const gs = g[xs];
    if (trackNearest) {
      const h = f[xs] - gs;
      if (h < bestH || (h === bestH && gs < bestG)) {
        best = s;
        bestH = h;
        bestG = gs;
      }
    }
    const n = space.expand(s, succ, parent[xs]);
    let cand = -1;
    let candF = 0;
    let candG = 0;
    for (let i = 0; i < n; i++) {
      const t = succIds[i];
      const ng = gs + succCosts[i];
      let b = base[t >>> PAGE_BITS];
      if (b < 0) {
        b = pages.map(t >>> PAGE_BITS);
        if (pages.g !== g) {
          g = pages.g;
          f = pages.f;
          parent = pages.parent;
          stamp = pages.stamp;
          closed = pages.closed;
          owner = pages.owner;
        }
      }
      const x = b + (t & PAGE_MASK);
      if (stamp[x] !== gen) {
        stamp[x] = gen;
        g[x] = ng;
        const ft = ng + space.heuristic(t);
        f[x] = ft;
        parent[x] = s;
        if (cand < 0) {
          cand = x;
          candF = ft;
          candG = ng;
        } else if (ft < candF || (ft === candF && ng > candG)) {
          heap.push(cand, candF, candG);
          cand = x;
          candF = ft;
          candG = ng;
        } else {
          heap.push(x, ft, ng);
        }
      } else if (ng < g[x]) {
        const ft = f[x] - g[x] + ng;
        f[x] = ft;
        g[x] = ng;
        parent[x] = s;
        if (x === cand) {
          candF = ft;
          candG = ng;
        } else if (closed[x] === gen) {
          closed[x] = 0;
          heap.push(x, ft, ng);
        } else {
          heap.decrease(x, ft, ng);
        }
      }
    }
    if (cand >= 0) {
      const keys = heap.keys;
      if (heap.size === 0 || candF < keys[0] || (candF === keys[0] && candG >= keys[1])) {
        pages.heapPos[cand] = -1;
        next = cand;
      } else {
        heap.push(cand, candF, candG);
      }
    }
  }

  if (status === "found" && goal >= 0) {
    best = goal;
    bestH = 0;
  }
  out.status = status;
  out.goal = goal;
  out.cost = goal >= 0 ? g[goalSlot] : NaN;
  out.expansions = expansions;
  out.best = best;
  out.bestH = bestH;
  return out;
}

/** The states from a start to `state` (inclusive) along parents of the latest search in `ws`. */
export function reconstructPath(ws: SearchWorkspace, state: number): Int32Array {
  if (!ws.reached(state)) throw new RangeError(`state ${state} was not reached in the latest search`);
  let n = 0;
  for (let s = state; s !== -1; s = ws.parentOf(s)) n++;
  const path = new Int32Array(n);
  for (let s = state, i = n - 1; s !== -1; s = ws.parentOf(s), i--) path[i] = s;
  return path;
}
