/**
 * ALT landmarks (Goldberg & Harrelson) of the abstract graph: landmarks picked by farthest-point selection in
 * rounds of two (the second of a round by octile distance, so a round's searches run in parallel in the map
 * builders), one exhaustive abstract search from each, each written straight into the packed per-region form,
 * in a job that can stop between searches and resume later (the abstract graph's `prepare` runs it under a
 * deadline).
 *
 * @module
 */

import { COST_SCALE, type Successors } from "./astar.ts";

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
  /**
   * The in-region distances the mates of {@link writeNeighbours} are costed with: region r's k x k block is at
   * distanceOffset[r], row-major by local node index.
   */
  blockTables(): { distance: Uint32Array | Float64Array; distanceOffset: Float64Array };
  /** CSR offsets of crossing edges per node (length nodeCount + 1). */
  readonly crossStart: Int32Array;
  /** The node across each crossing edge. */
  readonly crossTarget: Int32Array;
  /** Fixed-point cost of each crossing step. */
  readonly crossCost: Float64Array;
  /** Tile of each node. */
  readonly nodeTile: Int32Array;
  /** Region of each node (non-decreasing). */
  readonly nodeRegion: Int32Array;
  /** Nodes of region r are regionNodeStart[r] .. regionNodeStart[r + 1]. */
  readonly regionNodeStart: Int32Array;
  /** Width of the map, in tiles. */
  readonly width: number;
}

/**
 * Exhaustive Dijkstra over the abstract graph's nodes, distances only (all the landmarks keep): a binary heap of
 * (distance, node) entries with lazy deletion. Any exact order gives the same distances (integer sums below
 * 2^53), so they equal the A* core's; this loop skips its indexed heap, parents and megamorphic space calls
 * (17 searches over ~2.1 M nodes per clearance class at 8192^2), and reads the blocks and crossings in place.
 * Two exact shortcuts of the graph's shape (a region's nodes all joined by in-region shortest distances):
 *
 * - A node whose distance came over an in-region edge does not relax its region mates: were it v, reached from
 *   mate u, then for every mate j, d(v) + block(v, j) >= d(u) + block(u, j) (blocks are in-region shortest
 *   distances, so they keep the triangle inequality exactly), and u's relaxation (or, if u too came over an
 *   in-region edge, that of the node its chain of mates started from) already gave j at most that.
 * - Such a node is not queued either: its crossings are relaxed at once with each distance it is given (a
 *   label-correcting step: a later, shorter distance relaxes them again). A node is popped only when it came
 *   over a crossing (or is the source); when it is, its distance is final, since the node before it on a shortest
 *   path was popped earlier (distances are positive) or was given its final distance by a mate popped earlier,
 *   and relaxed its crossings then. The heap holds a region's entries only, not every node: the same distances
 *   for about half the heap operations (a heap's sifts are most of a search).
 */
export class NodeDijkstra {
  /** Distances of the latest search (Infinity where it did not reach). */
  readonly dist: Float64Array;
  /** Per node: 1 when its distance of the latest search came over an in-region edge. */
  private readonly viaMate: Uint8Array;
  private keys = new Float64Array(1024);
  private ids = new Int32Array(1024);
  private size = 0;

  constructor(private readonly graph: LandmarkGraph) {
    this.dist = new Float64Array(graph.nodeCount);
    this.viaMate = new Uint8Array(graph.nodeCount);
  }

  /** Searches from `source`; returns the nodes reached (the A* core's expansions: each is settled once). */
  run(source: number): number {
    const dist = this.dist.fill(Infinity);
    const viaMate = this.viaMate;
    const graph = this.graph;
    const { nodeRegion, regionNodeStart } = graph;
    const { distance, distanceOffset } = graph.blockTables();
    this.size = 0;
    dist[source] = 0;
    viaMate[source] = 0;
    this.#push(0, source);
    let reached = 1;
    while (this.size > 0) {
      const keys = this.keys, ids = this.ids;
      const d = keys[0], v = ids[0];
      // Pop: the last entry sifts down from the root.
      const size = --this.size;
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
      // A stale entry: v was given a shorter distance since (over a crossing: queued again; or by a mate).
      if (d > dist[v] || viaMate[v] !== 0) continue;
      const r = nodeRegion[v], i0 = regionNodeStart[r], i1 = regionNodeStart[r + 1];
      const row = distanceOffset[r] + (v - i0) * (i1 - i0) - i0;
      for (let t = i0; t < i1; t++) {
        if (t === v) continue;
        const nd = d + distance[row + t];
        const old = dist[t];
        if (nd >= old) continue;
        if (old === Infinity) reached++;
        dist[t] = nd;
        viaMate[t] = 1;
        reached += this.#crossings(t, nd);
      }
      reached += this.#crossings(v, d);
    }
    return reached;
  }

  /** Relaxes node v's crossings from distance d, queueing the nodes they shorten; returns the nodes newly reached. */
  #crossings(v: number, d: number): number {
    const { crossStart, crossTarget, crossCost } = this.graph;
    const dist = this.dist;
    let reached = 0;
    for (let e = crossStart[v], c1 = crossStart[v + 1]; e < c1; e++) {
      const t = crossTarget[e];
      const nd = d + crossCost[e];
      const old = dist[t];
      if (nd >= old) continue;
      if (old === Infinity) reached++;
      dist[t] = nd;
      this.viaMate[t] = 0;
      this.#push(nd, t);
    }
    return reached;
  }

  #push(key: number, id: number): void {
    let keys = this.keys, ids = this.ids;
    let i = this.size++;
    if (i === keys.length) {
      const k2 = new Float64Array(i * 2), i2 = new Int32Array(i * 2);
      k2.set(keys);
      i2.set(ids);
      keys = this.keys = k2;
      ids = this.ids = i2;
    }
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p] <= key) break;
      keys[i] = keys[p];
      ids[i] = ids[p];
      i = p;
    }
    keys[i] = key;
    ids[i] = id;
  }
}

/**
 * Landmarks picked per round, at most (see {@link pickBatch}, which picks two); fixed, so one thread and two pick
 * the same ones.
 */
export const LANDMARK_BATCH = 2;

/** Fixed-point octile distance between two tiles of a map `width` wide (the second pick's proxy). */
function octile(a: number, b: number, width: number): number {
  const ay = (a / width) | 0, by = (b / width) | 0;
  const dx = Math.abs(a - ay * width - (b - by * width)), dy = Math.abs(ay - by);
  return (Math.max(dx, dy) + (Math.SQRT2 - 1) * Math.min(dx, dy)) * COST_SCALE;
}

/**
 * The next round's landmark nodes (at most `max`, at most {@link LANDMARK_BATCH}): first the node with the
 * largest finite positive `score` (after the seed search, its distance from node 0; later, its distance to the
 * nearest landmark so far); then, without waiting for that node's search, the node farthest from it by the
 * octile distance (capped by its own score after the seed), so the round's searches can run at once on
 * several threads. Empty when no node is left. Ties go to the lower node: deterministic.
 */
export function pickBatch(graph: LandmarkGraph, score: Float64Array, max: number, seed: boolean): number[] {
  const n = graph.nodeCount;
  let a = -1, bestA = 0;
  for (let v = 0; v < n; v++) {
    const d = score[v];
    if (d > bestA && d < Infinity) {
      a = v;
      bestA = d;
    }
  }
  if (a < 0 || max <= 0) return [];
  if (max === 1) return [a];
  const tiles = graph.nodeTile, width = graph.width, at = tiles[a];
  let b = -1, bestB = 0;
  for (let v = 0; v < n; v++) {
    const s = score[v];
    if (s === Infinity || v === a) continue;
    const o = octile(at, tiles[v], width);
    const d = seed || o < s ? o : s;
    if (d > bestB) {
      b = v;
      bestB = d;
    }
  }
  return b < 0 ? [a] : [a, b];
}

/**
 * Landmark distances being made, one column per landmark ({@link PackedLandmarks} with `count` columns): each
 * column is written by {@link fillColumn} from one search alone, so columns fill on any thread in any order.
 */
export interface LandmarkTables extends PackedLandmarks {
  /** Columns (landmarks asked for). */
  count: number;
}

/**
 * Empty tables for `count` landmarks of `graph`: deltas Float64 when `wide` (the graph's distance blocks are:
 * a delta is at most an in-region distance, see {@link PackedLandmarks}), over SharedArrayBuffers when `shared`.
 */
export function landmarkTables(
  graph: { readonly nodeCount: number; readonly regionNodeStart: Int32Array },
  count: number,
  wide: boolean,
  shared: boolean,
): LandmarkTables {
  const regions = graph.regionNodeStart.length - 1, n = graph.nodeCount;
  const buf = (bytes: number) => shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  const base = new Float64Array(buf(regions * count * 8)).fill(Infinity);
  const delta = wide ? new Float64Array(buf(n * count * 8)) : new Uint32Array(buf(n * count * 4));
  return { count, base, delta };
}

/** Writes column `l` of `tables` from a landmark search's distances `dist` (per region: least distance, deltas). */
export function fillColumn(
  graph: LandmarkGraph,
  dist: Float64Array,
  tables: LandmarkTables,
  l: number,
): void {
  const { count, base, delta } = tables;
  const starts = graph.regionNodeStart;
  for (let r = 0, regions = starts.length - 1; r < regions; r++) {
    const i0 = starts[r], i1 = starts[r + 1];
    let b = Infinity;
    for (let i = i0; i < i1; i++) if (dist[i] < b) b = dist[i];
    base[r * count + l] = b;
    // Unreached regions: Infinity + 0 reads back as Infinity.
    for (let i = i0; i < i1; i++) delta[i * count + l] = b === Infinity ? 0 : dist[i] - b;
  }
}

/** Lowers `nearest` (per node: distance to the nearest landmark) by the distances of columns from .. to - 1. */
export function foldColumns(
  graph: LandmarkGraph,
  tables: LandmarkTables,
  from: number,
  to: number,
  nearest: Float64Array,
): void {
  const { count, base, delta } = tables;
  const starts = graph.regionNodeStart;
  for (let r = 0, regions = starts.length - 1; r < regions; r++) {
    for (let l = from; l < to; l++) {
      const b = base[r * count + l];
      if (b === Infinity) continue;
      for (let i = starts[r], i1 = starts[r + 1]; i < i1; i++) {
        const d = b + delta[i * count + l];
        if (d < nearest[i]) nearest[i] = d;
      }
    }
  }
}

/** The first `made` columns of `tables` as tables of their own (when fewer landmarks were made than asked). */
export function trimTables(tables: LandmarkTables, made: number): LandmarkTables {
  const { count, base, delta } = tables;
  if (made === count) return tables;
  const rows = base.length / count, n = delta.length / count;
  const out = {
    count: made,
    base: new Float64Array(rows * made),
    delta: delta instanceof Float64Array ? new Float64Array(n * made) : new Uint32Array(n * made),
  };
  for (let r = 0; r < rows; r++) for (let l = 0; l < made; l++) out.base[r * made + l] = base[r * count + l];
  for (let i = 0; i < n; i++) for (let l = 0; l < made; l++) out.delta[i * made + l] = delta[i * count + l];
  return out;
}

/**
 * A landmark computation over one graph that {@link run} may stop and resume: rounds of {@link pickBatch}, one
 * search and {@link fillColumn} per landmark. The map builders run the same steps with a round's searches on
 * different threads (abstractGraphBuild.ts), so both give the same tables bit for bit.
 */
export class LandmarkJob {
  /** Landmarks asked for. */
  readonly count: number;
  /** True once every landmark is made, or no node is left to pick. */
  finished = false;
  private readonly graph: LandmarkGraph;
  private readonly search: NodeDijkstra;
  private readonly tables: LandmarkTables;
  private readonly nearest: Float64Array;
  private made = 0;
  /** The round's landmark nodes (null before the seed search) and how many of them are searched. */
  private batch: number[] | null = null;
  private pos = 0;

  /** Starts a job for `count` landmarks (nothing is searched yet); `wide`: see {@link landmarkTables}. */
  constructor(graph: LandmarkGraph, count: number, wide = false) {
    this.count = count;
    this.graph = graph;
    this.search = new NodeDijkstra(graph);
    this.tables = landmarkTables(graph, count, wide, false);
    this.nearest = new Float64Array(graph.nodeCount).fill(Infinity);
  }

  /**
   * Goes on with the searches, polling `stop` before each landmark's; sets {@link finished} when done.
   * Returns the abstract expansions this call spent.
   */
  run(stop: (() => boolean) | null): number {
    const search = this.search, graph = this.graph;
    let spent = 0;
    if (this.batch === null) {
      // Seed: the node farthest from node 0 and the one farthest from it by octile distance.
      spent += search.run(0);
      this.batch = pickBatch(graph, search.dist, Math.min(LANDMARK_BATCH, this.count), true);
    }
    while (this.made < this.count && this.batch.length > 0) {
      while (this.pos < this.batch.length) {
        if (stop !== null && stop()) return spent;
        spent += search.run(this.batch[this.pos]);
        fillColumn(graph, search.dist, this.tables, this.made + this.pos);
        this.pos++;
      }
      const to = this.made + this.batch.length;
      foldColumns(graph, this.tables, this.made, to, this.nearest);
      this.made = to;
      this.pos = 0;
      this.batch = pickBatch(graph, this.nearest, Math.min(LANDMARK_BATCH, this.count - to), false);
    }
    this.finished = true;
    return spent;
  }

  /** Landmarks made so far. */
  get madeCount(): number {
    return this.made;
  }

  /** The landmarks made, packed ({@link PackedLandmarks} with {@link madeCount} columns). */
  result(): LandmarkTables {
    return trimTables(this.tables, this.made);
  }

  /** The distances of the landmarks made, unpacked: [n * madeCount + l] = distance from landmark l to node n. */
  packedDistances(): Float64Array {
    const { count, base, delta } = this.result();
    const n = this.graph.nodeCount, region = this.graph.nodeRegion;
    const out = new Float64Array(n * count);
    for (let v = 0; v < n; v++) {
      for (let l = 0; l < count; l++) out[v * count + l] = base[region[v] * count + l] + delta[v * count + l];
    }
    return out;
  }
}

/**
 * Landmark distances stored per region and node: the distance from landmark l to node n is
 * `base[region(n) * count + l] + delta[n * count + l]`, where base is the least distance to the region's nodes
 * (Infinity when the landmark does not reach the region: its nodes are joined both ways, so it reaches all or
 * none). A delta is at most an in-region distance (the region's nearest node plus the in-region edge), so it
 * fits Uint32 where the distance blocks do: 4 bytes a node and landmark instead of 8, plus 8 per region and
 * landmark. Sums are exact (integers below 2^53).
 */
export interface PackedLandmarks {
  /** Least distance per region and landmark, [region * count + l]. */
  base: Float64Array;
  /** Distance above the base per node and landmark, [node * count + l] (Float64 where the blocks are Float64). */
  delta: Uint32Array | Float64Array;
}
