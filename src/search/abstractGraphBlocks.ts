/**
 * The distance blocks of an abstract graph (AbstractGraph.prepareRegion): the in-region distance between every two
 * entrance nodes of a region. They are most of a big map's preparation (hundreds of thousands of regions at
 * 8192^2), and a block holds only distances, so no search here keeps parents or the A* core's tie-breaking:
 * 1. A pair joined by an open path of the fewest steps at the region's cheapest step costs (diagonal steps then
 *    straight, or the other way round) has that path's cost, a lower bound met: no search ({@link
 *    BlockSearch.straight}; about four pairs in five on the city maps).
 * 2. The other pairs are searched, greedily from the node with the most pairs left (on symmetric terrain one
 *    search from a node behind a wall serves all its pairs), each search an A* toward the nearest of its targets
 *    (octile steps at the cheapest costs: consistent, so a closed state's distance is final) stopped once every
 *    target is closed. Its open list is a plain binary heap of numbers, f * M + state (M a power of two above the
 *    box's state count), pushed again on a shorter path and skipped when popped closed; generation stamps replace
 *    clearing between searches.
 *
 * The distances equal one whole exhaustive search per node (the A* core's) bit for bit: step costs are fixed-point
 * integers and every key stays below 2^53 (checked per region: {@link BlockSearch.configure}; otherwise the A*
 * core's loop runs), so a shortest distance is one exact number however it is found. The shortest-path trees,
 * which depend on tie-breaking, still come from SectorSpace.exhaustiveFrom.
 *
 * @module
 */
import type { DistanceBlocks } from "./abstractGraphData.ts";
import type { SearchWorkspace } from "./astar.ts";
import type { SectorSpace } from "./sectorSpace.ts";

/** Largest integer a double holds exactly. */
const EXACT = 2 ** 53;

/** Direction (GridSpace's numbering) of a straight step along x by sign + 1, and along y. */
const STRAIGHT_X = Int8Array.of(4, -1, 0);
const STRAIGHT_Y = Int8Array.of(6, -1, 2);
/** Direction of a diagonal step by (sign x + 1) * 3 + sign y + 1. */
const DIAGONAL = Int8Array.of(5, -1, 3, -1, -1, -1, 7, -1, 1);

/** n steps of cost c (0 for none, even when c is Infinity). */
function times(n: number, c: number): number {
  return n === 0 ? 0 : n * c;
}

/**
 * One thread's distance-only in-region search over a {@link SectorSpace}'s moves (grown as boxes need).
 * {@link configure} it for a region, then ask {@link straight} for each pair and {@link run} for the pairs that
 * shortcut did not settle.
 */
export class BlockSearch {
  /** Distance of each local state reached by the last search (valid where {@link reached}). */
  dist = new Float64Array(256);
  /** Per local state: the generation that set its distance. */
  private seen = new Uint32Array(256);
  /** Per local state: the generation that closed it. */
  private closed = new Uint32Array(256);
  /** Per local state: the generation it is a target of. */
  private mark = new Uint32Array(256);
  /** The open list: packed keys g * scale + state, heap-ordered. */
  private heap = new Float64Array(2048);
  private gen = 0;
  private moves: Uint8Array = new Uint8Array(0);
  private stepCost: Float64Array = new Float64Array(0);
  private offset: Int32Array = new Int32Array(8);
  private width = 1;
  private stateCount = 0;
  /** The packing's multiplier: the state count rounded up to a power of two (a division by it is exact). */
  private scale = 1;
  /** Target columns and rows of the running search. */
  private tx = new Int32Array(16);
  private ty = new Int32Array(16);
  /** The search's heuristic: 0 none, 1 octile, 2 Manhattan (see {@link configure}). */
  private heuristic = 0;
  /**
   * True when every straight step of the region costs the same, and every diagonal step: {@link run} is then a
   * Dijkstra over two first-in first-out queues, one per step kind (see there).
   */
  private twoCosts = false;
  /** The two queues of {@link run}'s two-cost form: states and the keys they were pushed with. */
  private queueState = new Int32Array(2048);
  private queueKey = new Float64Array(2048);
  /** The region's cheapest straight and diagonal steps (Infinity: none). */
  private cheapStraight = Infinity;
  private cheapDiagonal = Infinity;

  /**
   * Takes the moves of `space` (configured for a region) and tells whether this search is exact for it: every
   * packed key g * scale + state below 2^53, g being at most the box's state count times its dearest step.
   * Otherwise the caller must search with SectorSpace.exhaustiveFrom.
   */
  configure(space: SectorSpace): boolean {
    const { moves, stepCost, offset, width } = space.moveTables();
    const n = space.stateCount;
    this.moves = moves;
    this.stepCost = stepCost;
    this.offset = offset;
    this.width = width;
    this.stateCount = n;
    let straight = Infinity, diagonal = Infinity, dearStraight = 0, dearDiagonal = 0;
    for (let l = 0; l < n; l++) {
      const mask = moves[l];
      if (mask === 0) continue;
      for (let d = 0; d < 8; d++) {
        if ((mask & (1 << d)) === 0) continue;
        const c = stepCost[l * 8 + d];
        if ((d & 1) === 0) {
          if (c < straight) straight = c;
          if (c > dearStraight) dearStraight = c;
        } else {
          if (c < diagonal) diagonal = c;
          if (c > dearDiagonal) dearDiagonal = c;
        }
      }
    }
    const dearest = Math.max(dearStraight, dearDiagonal);
    this.cheapStraight = straight;
    this.cheapDiagonal = diagonal;
    this.twoCosts = (straight === Infinity || (straight === dearStraight && straight > 0)) &&
      (diagonal === Infinity || (diagonal === dearDiagonal && diagonal > 0));
    // Octile steps at the cheapest costs are a metric (so a consistent heuristic) when a diagonal costs between one
    // and two straight steps; without diagonal moves, Manhattan steps are.
    this.heuristic = straight === Infinity
      ? 0
      : diagonal === Infinity
      ? 2
      : diagonal >= straight && diagonal <= 2 * straight
      ? 1
      : 0;
    let scale = 1;
    while (scale < n) scale *= 2;
    this.scale = scale;
    this.#ensure(n);
    // Keys hold g + h: g at most n dearest steps, h at most two box sides of them.
    return (n + 2 * (width + n / width)) * dearest * scale * 2 < EXACT;
  }

  /**
   * The distance from local state `a` to `b` when a path with the fewest possible steps (all diagonal moves
   * first, then straight, or the other way round; on 4-neighbour moves x then y, or y then x) is open and costs
   * no more than any path could (the cheapest steps times the fewest steps: a lower bound), else -1. Most node
   * pairs of open regions are settled so, each by a walk of at most two box widths instead of a search.
   */
  straight(a: number, b: number): number {
    const w = this.width;
    const ay = (a / w) | 0, by = (b / w) | 0;
    const ax = a - ay * w, bx = b - by * w;
    const dx = Math.abs(bx - ax), dy = Math.abs(by - ay);
    const sx = Math.sign(bx - ax) + 1, sy = Math.sign(by - ay) + 1;
    const lo = Math.min(dx, dy), hi = Math.max(dx, dy);
    const s = this.cheapStraight, d = this.cheapDiagonal;
    // A path of p straight and q diagonal steps has p + q >= hi and p + 2q >= dx + dy: its cost is at least the
    // least of these three corners' (a step count of 0 times a missing step's Infinity counts 0).
    const octile = times(lo, d) + times(hi - lo, s);
    const manhattan = times(dx + dy, s);
    const bound = Math.min(octile, manhattan, times(hi, d));
    if (!(bound < Infinity)) return -1;
    if (octile <= manhattan) {
      const diag = DIAGONAL[sx * 3 + sy];
      const run = dx > dy ? STRAIGHT_X[sx] : STRAIGHT_Y[sy];
      let c = this.#walk(a, diag, lo, run, hi - lo);
      if (c === bound) return c;
      c = this.#walk(a, run, hi - lo, diag, lo);
      if (c === bound) return c;
      return -1;
    }
    const x = STRAIGHT_X[sx], y = STRAIGHT_Y[sy];
    let c = this.#walk(a, x, dx, y, dy);
    if (c === bound) return c;
    c = this.#walk(a, y, dy, x, dx);
    return c === bound ? c : -1;
  }

  /** The cost of `n1` steps in direction `d1` then `n2` in `d2` from `s`, or -1 when a step is not a move. */
  #walk(s: number, d1: number, n1: number, d2: number, n2: number): number {
    const moves = this.moves, stepCost = this.stepCost;
    let cost = 0;
    for (let i = 0; i < n1; i++) {
      if ((moves[s] & (1 << d1)) === 0) return -1;
      cost += stepCost[s * 8 + d1];
      s += this.offset[d1];
    }
    for (let i = 0; i < n2; i++) {
      if ((moves[s] & (1 << d2)) === 0) return -1;
      cost += stepCost[s * 8 + d2];
      s += this.offset[d2];
    }
    return cost;
  }

  /**
   * Distances from local state `start` over the configured moves into {@link dist}, stopping once the first
   * `count` states of `targets` are closed (their distances are final then). Returns the states closed
   * (expansions).
   */
  run(start: number, targets: Int32Array, count: number): number {
    const { moves, stepCost, offset, scale } = this;
    if (this.gen === 0xffffffff) {
      this.seen.fill(0);
      this.closed.fill(0);
      this.mark.fill(0);
      this.gen = 0;
    }
    const gen = ++this.gen;
    const { dist, seen, closed, mark, heap } = this;
    let remaining = 0;
    const w = this.width;
    if (this.tx.length < count) {
      this.tx = new Int32Array(count * 2);
      this.ty = new Int32Array(count * 2);
    }
    const tx = this.tx, ty = this.ty;
    for (let i = 0; i < count; i++) {
      const t = targets[i];
      ty[i] = (t / w) | 0;
      tx[i] = t - ty[i] * w;
      if (mark[t] !== gen) {
        mark[t] = gen;
        remaining++;
      }
    }
    if (remaining === 0) return 0;
    if (this.twoCosts) return this.#runTwoCosts(start, gen, remaining);
    // A*'s order (f = g + h, h the least step counts to the nearest target times the cheapest steps: consistent,
    // so a closed state's g is final) where the region's steps allow; else Dijkstra's (h = 0).
    const mode = this.heuristic, s1 = this.cheapStraight, d1 = this.cheapDiagonal;
    seen[start] = gen;
    dist[start] = 0;
    heap[0] = start;
    let size = 1;
    let expansions = 0;
    while (size > 0) {
      // Pop the least key.
      const top = heap[0];
      const last = heap[--size];
      if (size > 0) {
        let i = 0;
        for (;;) {
          let c = 2 * i + 1;
          if (c >= size) break;
          if (c + 1 < size && heap[c + 1] < heap[c]) c++;
          if (heap[c] >= last) break;
          heap[i] = heap[c];
          i = c;
        }
        heap[i] = last;
      }
      const s = top - Math.floor(top / scale) * scale;
      if (closed[s] === gen) continue;
      closed[s] = gen;
      expansions++;
      if (mark[s] === gen && --remaining === 0) break;
      const gs = dist[s];
      let mask = moves[s];
      const base = s * 8;
      while (mask !== 0) {
        const bit = mask & -mask;
        mask ^= bit;
        const d = 31 - Math.clz32(bit);
        const t = s + offset[d];
        if (closed[t] === gen) continue;
        const ng = gs + stepCost[base + d];
        if (seen[t] === gen && ng >= dist[t]) continue;
        seen[t] = gen;
        dist[t] = ng;
        let h = 0;
        if (mode !== 0) {
          const y = (t / w) | 0, x = t - y * w;
          h = Infinity;
          for (let e = 0; e < count; e++) {
            const dx = Math.abs(x - tx[e]), dy = Math.abs(y - ty[e]);
            const est = mode === 1
              ? (dx < dy ? dx * d1 + (dy - dx) * s1 : dy * d1 + (dx - dy) * s1)
              : (dx + dy) * s1;
            if (est < h) h = est;
          }
        }
        // Push (ng + h) * scale + t.
        const key = (ng + h) * scale + t;
        let i = size++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (heap[p] <= key) break;
          heap[i] = heap[p];
          i = p;
        }
        heap[i] = key;
      }
    }
    return expansions;
  }

  /**
   * {@link run} where every straight step costs one amount and every diagonal step another: Dijkstra's order with
   * two first-in first-out queues instead of a heap (Dial-like: with one cost per step kind, states are closed in
   * order of distance and each queue is pushed in that order plus a constant, so each stays sorted and the least
   * key is at one of the two heads). A push and a pop cost a few array writes instead of a heap's log n sifts,
   * which outweighs the A* heuristic's saved expansions on the 16 x 16 boxes. Distances are the same exact
   * integer sums. Returns the states closed.
   */
  #runTwoCosts(start: number, gen: number, remaining: number): number {
    const { moves, offset, dist, seen, mark } = this;
    const n = this.stateCount;
    // Queue 0 (straight steps) at [0, n * 4), queue 1 (diagonal) at [n * 4, n * 8): each state is pushed at most
    // once per improving relaxation, at most four times per kind.
    const qs = this.queueState, qk = this.queueKey;
    const costS = this.cheapStraight, costD = this.cheapDiagonal;
    const base1 = n * 4;
    let head0 = 0, tail0 = 0, head1 = base1, tail1 = base1;
    seen[start] = gen;
    dist[start] = 0;
    let s = start;
    let expansions = 0;
    // No closed marks: steps cost more than 0 (configure), so a closed state's distance is below any new path's to
    // it, and each state has one live queue entry (its last push, at its distance), popped once.
    for (;;) {
      expansions++;
      if (mark[s] === gen && --remaining === 0) break;
      const gs = dist[s];
      let mask = moves[s];
      while (mask !== 0) {
        const bit = mask & -mask;
        mask ^= bit;
        const d = 31 - Math.clz32(bit);
        const t = s + offset[d];
        const diagonal = d & 1;
        const ng = gs + (diagonal === 0 ? costS : costD);
        if (seen[t] === gen && ng >= dist[t]) continue;
        seen[t] = gen;
        dist[t] = ng;
        if (diagonal === 0) {
          qs[tail0] = t;
          qk[tail0++] = ng;
        } else {
          qs[tail1] = t;
          qk[tail1++] = ng;
        }
      }
      // The next state: the lesser live head (an entry above its state's distance is stale: skipped).
      while (head0 < tail0 && qk[head0] > dist[qs[head0]]) head0++;
      while (head1 < tail1 && qk[head1] > dist[qs[head1]]) head1++;
      if (head0 < tail0) {
        if (head1 < tail1 && qk[head1] < qk[head0]) s = qs[head1++];
        else s = qs[head0++];
      } else if (head1 < tail1) s = qs[head1++];
      else break;
    }
    return expansions;
  }

  /** Whether local state `s` was reached by the last search (its {@link dist} is then set). */
  reached(s: number): boolean {
    return this.seen[s] === this.gen;
  }

  #ensure(n: number): void {
    if (this.dist.length < n) {
      this.dist = new Float64Array(n);
      this.seen = new Uint32Array(n);
      this.closed = new Uint32Array(n);
      this.mark = new Uint32Array(n);
      this.gen = 0;
    }
    // At most one push per improving relaxation (8 a state) plus the start.
    if (this.heap.length < 8 * n + 1) this.heap = new Float64Array(8 * n + 8);
    if (this.queueState.length < 8 * n) {
      this.queueState = new Int32Array(8 * n);
      this.queueKey = new Float64Array(8 * n);
    }
  }
}

/** This thread's block search (a block is filled to the end before the next: prepareRegion). */
const blockSearch = new BlockSearch();
/** A search's targets: the other nodes' indices, then (from k on) their local states. */
let blockPending = new Int32Array(128);
/** Per node pair of the current region (i * k + j): 1 while its distance is still to be searched. */
let blockLeft = new Uint8Array(1024);
/** Per node of the current region: its pairs still to be searched. */
let blockDegree = new Int32Array(64);

/**
 * Fills the k x k block at `off` of `distance` for the k nodes at local states `local` of `space` (configured for
 * their region); `symmetric`: uniform costs, d(i, j) = d(j, i). Returns the expansions. Where this module's search
 * is not exact for the region, SectorSpace.exhaustiveFrom searches into `ws`.
 */
export function fillBlock(
  space: SectorSpace,
  ws: SearchWorkspace,
  distance: DistanceBlocks,
  off: number,
  k: number,
  local: Int32Array,
  symmetric: boolean,
): number {
  if (blockSearch.configure(space)) {
    return symmetric ? symmetricBlock(distance, off, k, local) : directedBlock(distance, off, k, local);
  }
  // Sums that could leave the exact integers: the A* core's loop, one search per node (on symmetric terrain for
  // the later nodes only), stopped once its targets are closed.
  let spent = 0;
  for (let i = 0; i < k; i++) {
    const from = symmetric ? i + 1 : 0;
    const row = off + i * k;
    distance[row + i] = 0;
    if (from >= k) continue;
    spent += space.exhaustiveFrom(ws, local[i], local.subarray(from), k - from);
    for (let j = from; j < k; j++) {
      if (j === i) continue;
      distance[row + j] = ws.g[local[j]];
      if (symmetric) distance[off + j * k + i] = ws.g[local[j]];
    }
  }
  return spent;
}

/**
 * A symmetric block (uniform costs: d(i, j) = d(j, i)) by blockSearch: pairs joined by an open path of the
 * fewest, cheapest steps need no search; the others are covered greedily, each search from the node with the
 * most pairs left (a node hidden behind a wall then searches once for all its pairs, not each partner for it).
 * Returns the expansions.
 */
function symmetricBlock(distance: DistanceBlocks, off: number, k: number, local: Int32Array): number {
  const left = blockLeft.length >= k * k ? blockLeft : (blockLeft = new Uint8Array(k * k * 2));
  const degree = blockDegree.length >= k ? blockDegree : (blockDegree = new Int32Array(k * 2));
  const targets = blockPending.length >= 2 * k ? blockPending : (blockPending = new Int32Array(k * 4));
  degree.fill(0, 0, k);
  let open = 0;
  for (let i = 0; i < k; i++) {
    distance[off + i * k + i] = 0;
    for (let j = i + 1; j < k; j++) {
      const d = blockSearch.straight(local[i], local[j]);
      left[i * k + j] = left[j * k + i] = d < 0 ? 1 : 0;
      if (d >= 0) {
        distance[off + i * k + j] = distance[off + j * k + i] = d;
      } else {
        degree[i]++;
        degree[j]++;
        open++;
      }
    }
  }
  let spent = 0;
  while (open > 0) {
    let i = 0;
    for (let c = 1; c < k; c++) if (degree[c] > degree[i]) i = c;
    let n = 0;
    for (let j = 0; j < k; j++) {
      if (left[i * k + j] === 0) continue;
      targets[k + n] = local[j];
      targets[n++] = j;
    }
    spent += blockSearch.run(local[i], targets.subarray(k), n);
    for (let e = 0; e < n; e++) {
      const j = targets[e], d = blockSearch.dist[targets[k + e]];
      distance[off + i * k + j] = distance[off + j * k + i] = d;
      left[i * k + j] = left[j * k + i] = 0;
      degree[j]--;
    }
    degree[i] = 0;
    open -= n;
  }
  return spent;
}

/** A block on costly terrain (d(i, j) may differ from d(j, i)): {@link symmetricBlock}'s way, row by row. */
function directedBlock(distance: DistanceBlocks, off: number, k: number, local: Int32Array): number {
  const targets = blockPending.length >= 2 * k ? blockPending : (blockPending = new Int32Array(k * 4));
  let spent = 0;
  for (let i = 0; i < k; i++) {
    const row = off + i * k;
    distance[row + i] = 0;
    let n = 0;
    for (let j = 0; j < k; j++) {
      if (j === i) continue;
      const d = blockSearch.straight(local[i], local[j]);
      if (d >= 0) {
        distance[row + j] = d;
      } else {
        targets[k + n] = local[j];
        targets[n++] = j;
      }
    }
    if (n === 0) continue;
    spent += blockSearch.run(local[i], targets.subarray(k), n);
    for (let e = 0; e < n; e++) distance[row + targets[e]] = blockSearch.dist[targets[k + e]];
  }
  return spent;
}
