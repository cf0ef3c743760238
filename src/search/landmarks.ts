/**
 * ALT landmarks (Goldberg & Harrelson) of the abstract graph: landmarks picked by farthest-point selection,
 * one exhaustive abstract search from each, in a job that can stop between searches and resume later (the
 * abstract graph's `prepare` runs it under a deadline).
 *
 * @module
 */

import { astar, type SearchSpace, SearchWorkspace, type Successors, unlimited } from "./astar.ts";

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

const NO_LIMITS = unlimited();

/** The abstract graph's nodes with a zero heuristic and no goal (exhaustive: landmark distances). */
class NodeDijkstraSpace implements SearchSpace {
  readonly stateCount: number;
  readonly maxSuccessors: number;
  constructor(private readonly graph: LandmarkGraph) {
    this.stateCount = graph.nodeCount;
    this.maxSuccessors = graph.maxRegionNodes + graph.maxCrossings;
  }
  expand(state: number, out: Successors, _parent: number): number {
    return this.graph.writeNeighbours(state, out, 0);
  }
  heuristic(_state: number): number {
    return 0;
  }
  isGoal(_state: number): boolean {
    return false;
  }
}

/**
 * The node with the largest finite distance in the latest search of `ws` (or, with `nearest`, the largest
 * distance to the closest landmark so far, among nodes this search reached); -1 if none is positive.
 */
function farthest(ws: SearchWorkspace, n: number, nearest: Float64Array | null): number {
  let best = -1, bestD = 0;
  for (let v = 0; v < n; v++) {
    if (!ws.reached(v)) continue;
    const d = nearest === null ? ws.gOf(v) : nearest[v];
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
  private readonly space: NodeDijkstraSpace;
  private readonly ws = new SearchWorkspace();
  private readonly distance: Float64Array;
  private readonly nearest: Float64Array;
  private made = 0;
  /** The next landmark node, -1 when none is left, -2 before the seed search. */
  private next = -2;

  /** Starts a job for `count` landmarks (nothing is searched yet). */
  constructor(graph: LandmarkGraph, count: number) {
    this.count = count;
    this.n = graph.nodeCount;
    this.space = new NodeDijkstraSpace(graph);
    this.distance = new Float64Array(this.n * count).fill(Infinity);
    this.nearest = new Float64Array(this.n).fill(Infinity);
  }

  /**
   * Goes on with the searches, polling `stop` before each landmark's; sets {@link finished} when done.
   * Returns the abstract expansions this call spent.
   */
  run(stop: (() => boolean) | null): number {
    const n = this.n, count = this.count, ws = this.ws;
    let spent = 0;
    if (this.next === -2) {
      // Seed: the node farthest from node 0, then each next landmark farthest from all chosen ones.
      spent += astar(this.space, ws, [0], NO_LIMITS).expansions;
      this.next = farthest(ws, n, null);
    }
    while (this.made < count && this.next >= 0) {
      if (stop !== null && stop()) return spent;
      spent += astar(this.space, ws, [this.next], NO_LIMITS).expansions;
      const l = this.made;
      for (let v = 0; v < n; v++) {
        const d = ws.gOf(v);
        this.distance[v * count + l] = d;
        if (d < this.nearest[v]) this.nearest[v] = d;
      }
      this.made++;
      this.next = farthest(ws, n, this.nearest);
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
