/**
 * ALT landmarks (Goldberg & Harrelson) of the abstract graph: landmarks picked by farthest-point selection,
 * one exhaustive abstract search from each, in a job that can stop between searches and resume later (the
 * abstract graph's `prepare` runs it under a deadline).
 *
 * @module
 */

import { Successors } from "./astar.ts";

/** What the landmark searches need of the abstract graph (every region block prepared). */
export interface LandmarkGraph {
  /** Number of entrance nodes. */
  readonly nodeCount: number;
  /** Most nodes in one region. */
  readonly maxRegionNodes: number;
  /** Most crossing edges of one node. */
  readonly maxCrossings: number;
  /** Writes a node's region mates and crossings into `out` from index `count`; returns the new count. */
  writeNeighbours(state: number, out: Successors, count: number): number;
}

/**
 * Exhaustive Dijkstra over the abstract graph's nodes, distances only (all the landmarks keep): a binary heap of
 * (distance, node) entries with lazy deletion. Any exact order gives the same distances (integer sums below
 * 2^53), so they equal the A* core's; this loop skips its indexed heap, parents and megamorphic space calls
 * (17 searches over ~2.4 M nodes per clearance class at 8192^2).
 */
class NodeDijkstra {
  /** Distances of the latest search (Infinity where it did not reach). */
  readonly dist: Float64Array;
  private readonly succ: Successors;
  private keys = new Float64Array(1024);
  private ids = new Int32Array(1024);

  constructor(private readonly graph: LandmarkGraph) {
    this.dist = new Float64Array(graph.nodeCount);
    this.succ = new Successors(graph.maxRegionNodes + graph.maxCrossings);
  }

  /** Searches from `source`; returns the nodes settled (the A* core's expansions). */
  run(source: number): number {
    const dist = this.dist.fill(Infinity);
    const graph = this.graph;
    const succ = this.succ;
    let keys = this.keys, ids = this.ids;
    let size = 1;
    keys[0] = 0;
    ids[0] = source;
    dist[source] = 0;
    let settled = 0;
    while (size > 0) {
      const d = keys[0], v = ids[0];
      // Pop: the last entry sifts down from the root.
      size--;
      if (size > 0) {
        const k = keys[size], x = ids[size];
        let i = 0;
        for (;;) {
          let c = 2 * i + 1;
          if (c >= size) break;
          if (c + 1 < size && keys[c + 1] < keys[c]) c++;
          if (keys[c] >= k) break;
          keys[i] = keys[c];
          ids[i] = ids[c];
          i = c;
        }
        keys[i] = k;
        ids[i] = x;
      }
      if (d > dist[v]) continue; // a stale entry: v was pushed again nearer
      settled++;
      const n = graph.writeNeighbours(v, succ, 0);
      const sIds = succ.ids, sCosts = succ.costs;
      for (let j = 0; j < n; j++) {
        const t = sIds[j];
        const nd = d + sCosts[j];
        if (nd >= dist[t]) continue;
        dist[t] = nd;
        if (size === keys.length) {
          const k2 = new Float64Array(size * 2), i2 = new Int32Array(size * 2);
          k2.set(keys);
          i2.set(ids);
          keys = this.keys = k2;
          ids = this.ids = i2;
        }
        let i = size++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (keys[p] <= nd) break;
          keys[i] = keys[p];
          ids[i] = ids[p];
          i = p;
        }
        keys[i] = nd;
        ids[i] = t;
      }
    }
    return settled;
  }
}

/**
 * The node with the largest finite distance in `dist` (or, with `nearest`, the largest distance to the closest
 * landmark so far, among nodes `dist` reaches); -1 if none is positive.
 */
function farthest(dist: Float64Array, n: number, nearest: Float64Array | null): number {
  let best = -1, bestD = 0;
  for (let v = 0; v < n; v++) {
    if (dist[v] === Infinity) continue;
    const d = nearest === null ? dist[v] : nearest[v];
    if (d > bestD && d < Infinity) {
      best = v;
      bestD = d;
    }
  }
  return best;
}

/** A landmark computation over one graph that {@link run} may stop and resume. */
export class LandmarkJob {
  /** Landmarks asked for. */
  readonly count: number;
  /** True once every landmark is made, or no node is left to pick. */
  finished = false;
  private readonly n: number;
  private readonly search: NodeDijkstra;
  private readonly distance: Float64Array;
  private readonly nearest: Float64Array;
  private made = 0;
  /** The next landmark node, -1 when none is left, -2 before the seed search. */
  private next = -2;

  /** Starts a job for `count` landmarks (nothing is searched yet). */
  constructor(graph: LandmarkGraph, count: number) {
    this.count = count;
    this.n = graph.nodeCount;
    this.search = new NodeDijkstra(graph);
    this.distance = new Float64Array(this.n * count).fill(Infinity);
    this.nearest = new Float64Array(this.n).fill(Infinity);
  }

  /**
   * Goes on with the searches, polling `stop` before each landmark's; sets {@link finished} when done.
   * Returns the abstract expansions this call spent.
   */
  run(stop: (() => boolean) | null): number {
    const n = this.n, count = this.count, search = this.search, dist = search.dist;
    let spent = 0;
    if (this.next === -2) {
      // Seed: the node farthest from node 0, then each next landmark farthest from all chosen ones.
      spent += search.run(0);
      this.next = farthest(dist, n, null);
    }
    while (this.made < count && this.next >= 0) {
      if (stop !== null && stop()) return spent;
      spent += search.run(this.next);
      const l = this.made;
      for (let v = 0; v < n; v++) {
        const d = dist[v];
        this.distance[v * count + l] = d;
        if (d < this.nearest[v]) this.nearest[v] = d;
      }
      this.made++;
      this.next = farthest(dist, n, this.nearest);
    }
    this.finished = true;
    return spent;
  }

  /** Landmarks made so far. */
  get madeCount(): number {
    return this.made;
  }

  /** The distances of the landmarks made, packed: [n * madeCount + l] = distance from landmark l to node n. */
  packedDistances(): Float64Array {
    const n = this.n, made = this.made, count = this.count;
    const packed = new Float64Array(n * made);
    for (let v = 0; v < n; v++) {
      for (let l = 0; l < made; l++) packed[v * made + l] = this.distance[v * count + l];
    }
    return packed;
  }
}

/**
 * Landmark distances stored per region and node: the distance from landmark l to node n is
 * `base[region(n) * count + l] + delta[n * count + l]`, where base is the least distance to the region's nodes
 * (Infinity when the landmark does not reach the region: its nodes are joined both ways, so it reaches all or
 * none). A delta is at most an in-region distance, so it fits Uint32 where the distance blocks do: 4 bytes a
 * node and landmark instead of 8, plus 8 per region and landmark. Sums are exact (integers below 2^53).
 */
export interface PackedLandmarks {
  /** Least distance per region and landmark, [region * count + l]. */
  base: Float64Array;
  /** Distance above the base per node and landmark, [node * count + l] (Float64 when one does not fit Uint32). */
  delta: Uint32Array | Float64Array;
}

/**
 * {@link PackedLandmarks} of `full` ([node * count + l] = distance; nodes grouped by region: node i's region is
 * nodeRegion[i], non-decreasing).
 */
export function packLandmarks(
  full: Float64Array,
  count: number,
  nodeRegion: Int32Array,
  nodeCount: number,
  regionCount: number,
): PackedLandmarks {
  const base = new Float64Array(regionCount * count).fill(Infinity);
  for (let n = 0; n < nodeCount; n++) {
    const row = nodeRegion[n] * count;
    for (let l = 0; l < count; l++) {
      const d = full[n * count + l];
      if (d < base[row + l]) base[row + l] = d;
    }
  }
  let fits = true;
  for (let n = 0; n < nodeCount && fits; n++) {
    const row = nodeRegion[n] * count;
    for (let l = 0; l < count; l++) {
      const b = base[row + l];
      if (b !== Infinity && full[n * count + l] - b >= 0xffffffff) fits = false;
    }
  }
  const delta = fits ? new Uint32Array(nodeCount * count) : new Float64Array(nodeCount * count);
  for (let n = 0; n < nodeCount; n++) {
    const row = nodeRegion[n] * count;
    for (let l = 0; l < count; l++) {
      const b = base[row + l];
      // Unreached regions: Infinity + 0 reads back as Infinity.
      delta[n * count + l] = b === Infinity ? 0 : full[n * count + l] - b;
    }
  }
  return { base, delta };
}
