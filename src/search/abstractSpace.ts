/**
 * The abstract graph of a region table (HPA*-style) and the {@link SearchSpace}s that search it.
 *
 * Nodes are entrance crossing tiles: for each entrance, one or more crossing pairs (the run's middle pair,
 * plus both ends and evenly spaced pairs for long runs); each tile of a pair is a node, shared when two
 * entrances meet at the same tile. Edges are the crossing steps between the two tiles of a pair (the grid
 * cost of that one step) and intra-region edges between every two nodes of the same region, costed with the
 * true shortest distance inside the region (exhaustive grid searches restricted to the region, run lazily the
 * first time a region is expanded, then kept: an {@link AbstractGraph} belongs to one table and layer, so the
 * work is done once per map version).
 *
 * Node ids are grouped by region (the nodes of region r are `regionNodeStart[r] .. regionNodeStart[r + 1]`),
 * so a region's distance matrix is a dense k x k block.
 *
 * All costs are the A* core's fixed-point integers, so abstract and grid costs compare exactly.
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import {
  astar,
  COST_SCALE,
  type SearchLimits,
  type SearchResult,
  type SearchSpace,
  SearchWorkspace,
  type Successors,
} from "./astar.ts";
import { GridSpace, type Neighborhood } from "./gridSpace.ts";

/** How many crossing pairs an entrance gets. */
export interface EntranceSampling {
  /** Runs longer than this get both end pairs as well as the middle one. */
  longRun: number;
  /** In runs longer than {@link longRun}, also a pair every `spacing` tiles (0: ends and middle only). */
  spacing: number;
}

/** Default sampling: middle pair; both ends for runs over 6 tiles (Botea et al.'s HPA* rule, plus the middle). */
export const DEFAULT_SAMPLING: EntranceSampling = { longRun: 6, spacing: 0 };

/**
 * The grid restricted to one region's tiles, with a zero heuristic and no goal: an exhaustive search from a
 * tile yields the true in-region distance to every tile of the region (Dijkstra on the one A* core).
 */
export class RegionSpace implements SearchSpace {
  /** Tile ids. */
  stateCount = 0;
  /** Up to 8 grid moves. */
  readonly maxSuccessors = 8;
  private readonly grid = new GridSpace();
  private regionOf: Int32Array = new Int32Array(0);
  private region = -1;
  private goal = -1;
  private layer: PassLayer | null = null;
  private clearance = 0;
  private neighborhood: Neighborhood = 8;

  /** Configures the layer, clearance class, neighbourhood and region table; returns this. */
  configure(layer: PassLayer, table: RegionTable, clearance: number, neighborhood: Neighborhood): this {
    this.layer = layer;
    this.clearance = clearance;
    this.neighborhood = neighborhood;
    this.grid.configure(layer, clearance, neighborhood, 0);
    this.stateCount = this.grid.stateCount;
    this.regionOf = table.regionOf;
    return this;
  }

  /**
   * Restricts the search to region r; with a goal tile (in r) the search stops there and uses the grid's
   * octile heuristic, without one (-1) it is exhaustive with a zero heuristic. Returns this.
   */
  restrict(region: number, goalTile = -1): this {
    this.region = region;
    this.goal = goalTile;
    if (goalTile >= 0) this.grid.configure(this.layer!, this.clearance, this.neighborhood, goalTile);
    return this;
  }

  /** The grid moves that stay inside the region. */
  expand(state: number, out: Successors, parent: number): number {
    const n = this.grid.expand(state, out, parent);
    const ids = out.ids;
    const costs = out.costs;
    const regionOf = this.regionOf;
    const region = this.region;
    let kept = 0;
    for (let i = 0; i < n; i++) {
      if (regionOf[ids[i]] !== region) continue;
      ids[kept] = ids[i];
      costs[kept] = costs[i];
      kept++;
    }
    return kept;
  }

  /** The grid heuristic toward the goal tile, or zero without one. */
  heuristic(state: number): number {
    return this.goal < 0 ? 0 : this.grid.heuristic(state);
  }

  /** The goal tile (never without one: exhaustive). */
  isGoal(state: number): boolean {
    return state === this.goal;
  }
}

/** Fixed-point scale of a diagonal step at cost 1 (before rounding), as in GridSpace. */
const DIAGONAL_STEP = Math.SQRT2 * COST_SCALE;

/** Grid step per direction code (see {@link stepCode}). */
const STEP_DX = Int8Array.of(1, -1, 0, 0, 1, 1, -1, -1);
const STEP_DY = Int8Array.of(0, 0, 1, -1, 1, -1, 1, -1);

/** Direction code 0..7 of a unit grid step. */
function stepCode(dx: number, dy: number): number {
  if (dy === 0) return dx > 0 ? 0 : 1;
  if (dx === 0) return dy > 0 ? 2 : 3;
  return 4 + (dx > 0 ? 0 : 2) + (dy > 0 ? 0 : 1);
}

/**
 * The node with the largest finite distance in the latest search of `ws` (or, with `nearest`, the largest
 * distance to the closest landmark so far, among nodes this search reached); -1 if none is positive.
 */
function farthest(ws: SearchWorkspace, n: number, nearest: Float64Array | null): number {
  let best = -1, bestD = 0;
  for (let v = 0; v < n; v++) {
    if (!ws.reached(v)) continue;
    const d = nearest === null ? ws.g[v] : nearest[v];
    if (d > bestD && d < Infinity) {
      best = v;
      bestD = d;
    }
  }
  return best;
}

/** The state of a landmark computation that {@link AbstractGraph.prepare} may stop and resume. */
interface LandmarkJob {
  count: number;
  space: NodeDijkstraSpace;
  ws: SearchWorkspace;
  distance: Float64Array;
  nearest: Float64Array;
  made: number;
  /** The next landmark node, -1 when none is left, -2 before the seed search. */
  next: number;
}

/** The abstract graph's nodes with a zero heuristic and no goal (exhaustive: landmark distances). */
class NodeDijkstraSpace implements SearchSpace {
  readonly stateCount: number;
  readonly maxSuccessors: number;
  constructor(private readonly graph: AbstractGraph) {
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

const NO_LIMITS: SearchLimits = {
  maxExpansions: Infinity,
  deadline: Infinity,
  cancel: null,
  trackNearest: false,
};

/**
 * Entrance nodes, crossing edges and lazily computed intra-region distances of one region table over one
 * pass layer, clearance class and neighbourhood. Build once per table (it allocates), reuse for every query.
 */
export class AbstractGraph {
  /** The table the graph abstracts. */
  readonly table: RegionTable;
  /** The layer whose costs the distances use. */
  readonly layer: PassLayer;
  /** Grid neighbourhood of the distances. */
  readonly neighborhood: Neighborhood;
  /** Number of entrance nodes. */
  readonly nodeCount: number;
  /** Tile of each node. */
  readonly nodeTile: Int32Array;
  /** Region of each node (non-decreasing in node id). */
  readonly nodeRegion: Int32Array;
  /** Node of each tile, -1 for tiles that are not nodes. */
  readonly tileNode: Int32Array;
  /** Nodes of region r are regionNodeStart[r] .. regionNodeStart[r + 1]; length regionCount + 1. */
  readonly regionNodeStart: Int32Array;
  /** CSR offsets of crossing edges per node; length nodeCount + 1. */
  readonly crossStart: Int32Array;
  /** The node across each crossing edge. */
  readonly crossTarget: Int32Array;
  /** Fixed-point cost of each crossing step. */
  readonly crossCost: Float64Array;
  /** Most nodes in one region. */
  readonly maxRegionNodes: number;
  /** Most crossing edges of one node. */
  readonly maxCrossings: number;
  /** Offset of region r's k x k distance block in {@link distance}. */
  private readonly distanceOffset: Float64Array;
  /** Row-major k x k blocks: distance[off + i * k + j] = in-region cost from node i to node j (local ids). */
  private readonly distance: Float64Array;
  /** 1 once region r's block is computed. */
  private readonly ready: Uint8Array;
  /**
   * Shortest-path trees of the distance blocks, kept so refinement is a walk instead of a search: for node i
   * and each tile of its region (local index in the sector box, sectorSize^2 per node), the direction code + 1
   * of the step that entered the tile on the tree from node i (0: i's own tile or unreached).
   */
  private readonly treeStep: Uint8Array;
  /** Tiles per node in {@link treeStep}: sectorSize^2. */
  private readonly treeStride: number;
  /** Landmarks of the ALT heuristic (0 until {@link prepareLandmarks}). */
  landmarkCount = 0;
  /** landmarkDistance[n * landmarkCount + l] = abstract distance from landmark l to node n (Infinity: unreachable). */
  landmarkDistance: Float64Array = new Float64Array(0);
  /** True when every open tile costs the same, so abstract distances are symmetric. */
  readonly uniformCost: boolean;
  /** Grid expansions spent computing distance blocks so far. */
  prepExpansions = 0;
  /** Distance blocks computed so far. */
  preparedRegions = 0;
  /** Where {@link prepareAll} goes on (regions before it are prepared). */
  private nextRegion = 0;
  /** A landmark computation stopped half way (see {@link prepare}), or null. */
  private landmarkJob: LandmarkJob | null = null;
  private readonly regionSpace = new RegionSpace();
  private readonly workspace = new SearchWorkspace();
  private readonly clearance: number;

  /** Places the entrance nodes and crossing edges (no distances yet: those come lazily, per region). */
  constructor(
    table: RegionTable,
    layer: PassLayer,
    neighborhood: Neighborhood = 8,
    sampling: EntranceSampling = DEFAULT_SAMPLING,
  ) {
    if (layer.width !== table.width || layer.height !== table.height) {
      throw new RangeError("AbstractGraph: layer and table sizes differ");
    }
    this.table = table;
    this.layer = layer;
    this.neighborhood = neighborhood;
    this.clearance = table.clearanceClass;
    const { width, regionOf, regionCount, entranceCount } = table;

    // 1. Crossing pairs per entrance.
    const pairA: number[] = [];
    const pairB: number[] = [];
    for (let e = 0; e < entranceCount; e++) {
      const a = table.entranceTileA[e];
      const across = table.entranceTileB[e] - a;
      const along = across === 1 ? width : 1;
      const length = table.entranceLength[e];
      const mid = (length - 1) >> 1;
      const first = a - mid * along;
      const add = (i: number) => {
        pairA.push(first + i * along);
        pairB.push(first + i * along + across);
      };
      add(mid);
      if (length > sampling.longRun) {
        add(0);
        add(length - 1);
        if (sampling.spacing > 0) {
          for (let i = sampling.spacing; i < length - 1; i += sampling.spacing) {
            if (Math.abs(i - mid) >= sampling.spacing >> 1 && length - 1 - i >= sampling.spacing >> 1) add(i);
          }
        }
      }
    }

    // 2. Unique tiles, numbered grouped by region (counting sort), ties by tile id.
    const tileNode = new Int32Array(width * table.height).fill(-1);
    const tiles: number[] = [];
    for (let p = 0; p < pairA.length; p++) {
      for (const t of [pairA[p], pairB[p]]) {
        if (tileNode[t] === -1) {
          tileNode[t] = 0;
          tiles.push(t);
        }
      }
    }
    tiles.sort((x, y) => regionOf[x] - regionOf[y] || x - y);
    const nodeCount = tiles.length;
    const nodeTile = Int32Array.from(tiles);
    const nodeRegion = new Int32Array(nodeCount);
    const regionNodeStart = new Int32Array(regionCount + 1);
    for (let i = 0; i < nodeCount; i++) {
      tileNode[nodeTile[i]] = i;
      nodeRegion[i] = regionOf[nodeTile[i]];
      regionNodeStart[nodeRegion[i] + 1]++;
    }
    let maxRegionNodes = 0;
    for (let r = 0; r < regionCount; r++) {
      maxRegionNodes = Math.max(maxRegionNodes, regionNodeStart[r + 1]);
      regionNodeStart[r + 1] += regionNodeStart[r];
    }

    // 3. Crossing edges (both directions), CSR; a pair sampled twice (short runs) is deduplicated.
    const crossStart = new Int32Array(nodeCount + 1);
    const seen = new Set<number>();
    const edgeFrom: number[] = [];
    const edgeTo: number[] = [];
    for (let p = 0; p < pairA.length; p++) {
      const u = tileNode[pairA[p]], v = tileNode[pairB[p]];
      const key = u * nodeCount + v;
      if (seen.has(key)) continue;
      seen.add(key);
      edgeFrom.push(u, v);
      edgeTo.push(v, u);
      crossStart[u + 1]++;
      crossStart[v + 1]++;
    }
    let maxCrossings = 0;
    for (let i = 0; i < nodeCount; i++) {
      maxCrossings = Math.max(maxCrossings, crossStart[i + 1]);
      crossStart[i + 1] += crossStart[i];
    }
    const crossTarget = new Int32Array(edgeFrom.length);
    const crossCost = new Float64Array(edgeFrom.length);
    const cursor = crossStart.slice(0, nodeCount);
    for (let k = 0; k < edgeFrom.length; k++) {
      const slot = cursor[edgeFrom[k]]++;
      const to = edgeTo[k];
      crossTarget[slot] = to;
      // A crossing pair is 4-adjacent: one straight step onto the target tile.
      crossCost[slot] = Math.round(layer.tileCost[nodeTile[to]] * COST_SCALE);
    }

    // 4. Distance block offsets.
    const distanceOffset = new Float64Array(regionCount);
    let total = 0;
    for (let r = 0; r < regionCount; r++) {
      distanceOffset[r] = total;
      const k = regionNodeStart[r + 1] - regionNodeStart[r];
      total += k * k;
    }

    this.nodeCount = nodeCount;
    this.nodeTile = nodeTile;
    this.nodeRegion = nodeRegion;
    this.tileNode = tileNode;
    this.regionNodeStart = regionNodeStart;
    this.crossStart = crossStart;
    this.crossTarget = crossTarget;
    this.crossCost = crossCost;
    this.maxRegionNodes = maxRegionNodes;
    this.maxCrossings = maxCrossings;
    this.distanceOffset = distanceOffset;
    this.distance = new Float64Array(total);
    this.ready = new Uint8Array(regionCount);
    this.treeStride = table.sectorSize * table.sectorSize;
    this.treeStep = new Uint8Array(nodeCount * this.treeStride);
    let uniform = true;
    for (let t = 0; t < regionOf.length && uniform; t++) {
      if (regionOf[t] >= 0 && layer.tileCost[t] !== layer.minCost) uniform = false;
    }
    this.uniformCost = uniform;
    this.regionSpace.configure(layer, table, this.clearance, neighborhood);
  }

  /** True once region r's distance block is computed. */
  isPrepared(region: number): boolean {
    return this.ready[region] === 1;
  }

  /**
   * Computes region r's distance block if it is missing (one exhaustive in-region search per node, each at
   * most the region's tile count in expansions). Returns the expansions spent (0 when it was ready).
   */
  prepareRegion(region: number): number {
    if (this.ready[region] === 1) return 0;
    const i0 = this.regionNodeStart[region];
    const k = this.regionNodeStart[region + 1] - i0;
    const off = this.distanceOffset[region];
    const ws = this.workspace;
    const space = this.regionSpace.restrict(region);
    let spent = 0;
    const { width, height, sectorSize, sectorsX, regionOf } = this.table;
    const sector = this.table.regionSector[region];
    const x0 = (sector % sectorsX) * sectorSize, y0 = Math.floor(sector / sectorsX) * sectorSize;
    const x1 = Math.min(width, x0 + sectorSize), y1 = Math.min(height, y0 + sectorSize);
    const treeStep = this.treeStep;
    for (let i = 0; i < k; i++) {
      const r = astar(space, ws, [this.nodeTile[i0 + i]], NO_LIMITS);
      spent += r.expansions;
      const g = ws.g;
      for (let j = 0; j < k; j++) this.distance[off + i * k + j] = g[this.nodeTile[i0 + j]];
      const base = (i0 + i) * this.treeStride;
      const parent = ws.parent;
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const t = y * width + x;
          if (regionOf[t] !== region || !ws.reached(t) || parent[t] < 0) continue;
          const p = parent[t];
          const py = (p / width) | 0;
          treeStep[base + (y - y0) * sectorSize + (x - x0)] = 1 + stepCode(x - (p - py * width), y - py);
        }
      }
    }
    this.ready[region] = 1;
    this.prepExpansions += spent;
    this.preparedRegions++;
    return spent;
  }

  /**
   * Prepares every region (for warm-up: the one-off cost per map version); returns the expansions spent.
   * With `stop`, polled before each region, it may return early; prepared regions stay prepared, so a later
   * call continues where this one stopped.
   */
  prepareAll(stop: (() => boolean) | null = null): number {
    let spent = 0;
    for (let r = this.nextRegion; r < this.table.regionCount; r++) {
      if (stop !== null && this.ready[r] === 0 && stop()) {
        this.nextRegion = r;
        return spent;
      }
      spent += this.prepareRegion(r);
    }
    this.nextRegion = this.table.regionCount;
    return spent;
  }

  /** True once every region's distance block is computed. */
  get allPrepared(): boolean {
    return this.preparedRegions === this.table.regionCount;
  }

  /**
   * Writes the in-region shortest path from node i's tile to node j's tile (same region, block prepared;
   * exactly {@link regionDistance}(i, j) long) into `out` from index `at`, without node i's tile; returns
   * the index after the last tile written. `out` must have room (at most the region's tile count).
   */
  writeRegionPath(i: number, j: number, out: Int32Array, at: number): number {
    const n = this.writeTreeWalk(i, this.nodeTile[j], out, at);
    out.subarray(at, n).reverse();
    return n;
  }

  /**
   * Writes the tiles of node i's tree path walked back from `tile` (same region, block prepared) toward node
   * i: `tile` first, node i's tile left out. Reversed, that is node i's shortest path to `tile`; as written,
   * on symmetric (uniform-cost) terrain, a shortest path from `tile` to node i. Returns the index after the
   * last tile written.
   */
  writeTreeWalk(i: number, tile: number, out: Int32Array, at: number): number {
    const { width, sectorSize, sectorsX } = this.table;
    const sector = this.table.regionSector[this.nodeRegion[i]];
    const x0 = (sector % sectorsX) * sectorSize, y0 = Math.floor(sector / sectorsX) * sectorSize;
    const base = i * this.treeStride;
    const source = this.nodeTile[i];
    let n = at;
    for (let t = tile; t !== source;) {
      out[n++] = t;
      const y = (t / width) | 0;
      const code = this.treeStep[base + (y - y0) * sectorSize + (t - y * width - x0)] - 1;
      if (code < 0) throw new RangeError(`tile ${t} is not on node ${i}'s region tree`);
      t -= STEP_DY[code] * width + STEP_DX[code];
    }
    return n;
  }

  /**
   * The in-region distance (fixed point) from node i to `tile` (same region, block prepared), summed along
   * node i's stored tree with the grid's own step costs, so it equals what an in-region search finds.
   */
  treeDistance(i: number, tile: number): number {
    const { width, sectorSize, sectorsX } = this.table;
    const sector = this.table.regionSector[this.nodeRegion[i]];
    const x0 = (sector % sectorsX) * sectorSize, y0 = Math.floor(sector / sectorsX) * sectorSize;
    const base = i * this.treeStride;
    const source = this.nodeTile[i];
    const tileCost = this.layer.tileCost;
    let cost = 0;
    for (let t = tile; t !== source;) {
      const y = (t / width) | 0;
      const code = this.treeStep[base + (y - y0) * sectorSize + (t - y * width - x0)] - 1;
      if (code < 0) return Infinity;
      cost += Math.round(tileCost[t] * (code < 4 ? COST_SCALE : DIAGONAL_STEP));
      t -= STEP_DY[code] * width + STEP_DX[code];
    }
    return cost;
  }

  /**
   * Computes the ALT landmark distances (Goldberg & Harrelson): prepares every region, picks `count`
   * landmarks by farthest-point selection and runs one exhaustive abstract search from each. After this the
   * {@link AbstractSpace} heuristic is max(octile, landmark bounds): still admissible and consistent, much
   * tighter on mazes and around large obstacles. Returns the abstract expansions spent.
   */
  prepareLandmarks(count = 8): number {
    return this.prepare(count, null).landmarkExpansions;
  }

  /**
   * Continues the one-off preparation (every region's block, then `count` landmarks): polls `stop` between
   * regions and between landmark searches and returns early when it says so, keeping what is done, so the
   * next call goes on from there. A planner under a deadline thus never blocks its worker for the whole
   * preparation (up to seconds on 512x512 maps), and no request's work is lost. `done` tells whether the graph
   * is fully prepared; expansions are the ones this call spent.
   */
  prepare(count: number, stop: (() => boolean) | null): { done: boolean; landmarkExpansions: number } {
    this.prepareAll(stop);
    if (!this.allPrepared) return { done: false, landmarkExpansions: 0 };
    const n = this.nodeCount;
    if (n === 0 || count <= 0 || this.landmarkCount > 0) return { done: true, landmarkExpansions: 0 };
    let job = this.landmarkJob;
    if (job === null || job.count !== count) {
      job = {
        count,
        space: new NodeDijkstraSpace(this),
        ws: new SearchWorkspace(),
        distance: new Float64Array(n * count).fill(Infinity),
        nearest: new Float64Array(n).fill(Infinity),
        made: 0,
        next: -2,
      };
      this.landmarkJob = job;
    }
    let spent = 0;
    if (job.next === -2) {
      // Seed: the node farthest from node 0, then each next landmark farthest from all chosen ones.
      spent += astar(job.space, job.ws, [0], NO_LIMITS).expansions;
      job.next = farthest(job.ws, n, null);
    }
    while (job.made < count && job.next >= 0) {
      if (stop !== null && stop()) return { done: false, landmarkExpansions: spent };
      spent += astar(job.space, job.ws, [job.next], NO_LIMITS).expansions;
      const l = job.made;
      for (let v = 0; v < n; v++) {
        const d = job.ws.reached(v) ? job.ws.g[v] : Infinity;
        job.distance[v * count + l] = d;
        if (d < job.nearest[v]) job.nearest[v] = d;
      }
      job.made++;
      job.next = farthest(job.ws, n, job.nearest);
    }
    const made = job.made;
    const packed = new Float64Array(n * made);
    for (let v = 0; v < n; v++) {
      for (let l = 0; l < made; l++) packed[v * made + l] = job.distance[v * count + l];
    }
    this.landmarkDistance = packed;
    this.landmarkCount = made;
    this.landmarkJob = null;
    return { done: true, landmarkExpansions: spent };
  }

  /** In-region fixed-point distance from node i to node j (same region, block prepared). */
  regionDistance(i: number, j: number): number {
    const region = this.nodeRegion[i];
    const i0 = this.regionNodeStart[region];
    const k = this.regionNodeStart[region + 1] - i0;
    return this.distance[this.distanceOffset[region] + (i - i0) * k + (j - i0)];
  }

  /**
   * Writes node `state`'s region mates (block prepared) and crossings into `out` from index `count`; returns
   * the new count.
   */
  writeNeighbours(state: number, out: Successors, count: number): number {
    const ids = out.ids;
    const costs = out.costs;
    const region = this.nodeRegion[state];
    const i0 = this.regionNodeStart[region];
    const i1 = this.regionNodeStart[region + 1];
    const k = i1 - i0;
    const row = this.distanceOffset[region] + (state - i0) * k - i0;
    const distance = this.distance;
    for (let j = i0; j < i1; j++) {
      if (j === state) continue;
      ids[count] = j;
      costs[count] = distance[row + j];
      count++;
    }
    for (let e = this.crossStart[state], end = this.crossStart[state + 1]; e < end; e++) {
      ids[count] = this.crossTarget[e];
      costs[count] = this.crossCost[e];
      count++;
    }
    return count;
  }

  /**
   * In-region A* from tile `from` to tile `to` (same region) into `ws`; returns the search result (the path
   * is read with reconstructPath). Bounded by the region's tile count.
   */
  searchInRegion(
    from: number,
    to: number,
    ws: SearchWorkspace,
    limits: SearchLimits,
    out: SearchResult,
  ): SearchResult {
    const space = this.regionSpace.restrict(this.table.regionOf[from], to);
    return astar(space, ws, [from], limits, out);
  }

  /**
   * Exhaustive in-region search from `tile` into `ws` (distances readable as ws.g[t] for tiles of its region).
   * Returns the expansions.
   */
  searchRegionFrom(tile: number, ws: SearchWorkspace): number {
    const space = this.regionSpace.restrict(this.table.regionOf[tile]);
    return astar(space, ws, [tile], NO_LIMITS).expansions;
  }
}

/**
 * The abstract graph as an A* space for one query: states 0..nodeCount-1 are entrance nodes, nodeCount is
 * the start and nodeCount + 1 the goal, linked to the nodes of their regions by in-region distances (and to
 * each other when they share a region). Expanding a node whose region block is missing computes it, unless
 * the cancel flag is set or the preparation budget is spent: then the expansion yields nothing and
 * {@link aborted} is set, which drains the search quickly; callers must check it.
 */
export class AbstractSpace implements SearchSpace {
  /** nodeCount + 2. */
  stateCount = 0;
  /** Region nodes + crossings + the goal. */
  maxSuccessors = 1;
  /** Set when a missing region block could not be computed (cancel or budget); the search result is void. */
  aborted: "" | "cancelled" | "budget" = "";
  /** Grid expansions spent preparing region blocks during this query. */
  prepExpansions = 0;
  private graph: AbstractGraph | null = null;
  private startState = 0;
  private goalState = 0;
  private startTile = 0;
  private goalTile = 0;
  private startRegion = -1;
  private goalRegion = -1;
  /** Distance from the start to each node of its region (local ids), and to the goal if they share it. */
  private startDistance = new Float64Array(0);
  private startToGoal = NaN;
  /** Distance from each node of the goal's region (local ids) to the goal. */
  private goalDistance = new Float64Array(0);
  private goalX = 0;
  private goalY = 0;
  private hStraight = 0;
  private hDiagonal = 0;
  private width = 0;
  private cancel: Int32Array | null = null;
  private prepBudget = Infinity;
  /** Landmarks usable this query (the goal reachable from them), and their distances to the goal. */
  private activeLandmarks = new Int32Array(0);
  private activeCount = 0;
  private landmarkToGoal = new Float64Array(0);
  /** Also use the reverse landmark bound (symmetric costs only). */
  private symmetric = false;
  /**
   * True when this query's start and goal links came from the nodes' stored trees (see configure); the
   * refinement then walks those trees instead of the start and goal searches' parents.
   */
  linksFromTrees = false;

  /**
   * Sets up a query from startTile to goalTile (both open, any regions) using `ws` for the in-region search
   * from the start and `goalWs` for the one from the goal (not the workspace the abstract search itself will
   * use; with distinct workspaces both trees stay readable for refinement). Goal links use the distance from
   * the goal, which equals the distance to it on uniform-cost terrain. Returns the grid expansions spent.
   */
  configure(
    graph: AbstractGraph,
    startTile: number,
    goalTile: number,
    ws: SearchWorkspace,
    cancel: Int32Array | null,
    prepBudget: number,
    goalWs: SearchWorkspace = ws,
  ): number {
    this.graph = graph;
    const { table, layer } = graph;
    const n = graph.nodeCount;
    this.stateCount = n + 2;
    this.maxSuccessors = graph.maxRegionNodes + graph.maxCrossings + 1;
    this.startState = n;
    this.goalState = n + 1;
    this.startTile = startTile;
    this.goalTile = goalTile;
    this.startRegion = table.regionOf[startTile];
    this.goalRegion = table.regionOf[goalTile];
    this.width = table.width;
    this.goalX = goalTile % table.width;
    this.goalY = (goalTile - this.goalX) / table.width;
    this.hStraight = Math.floor(layer.minCost * COST_SCALE);
    this.hDiagonal = Math.floor(layer.minCost * Math.SQRT2 * COST_SCALE);
    this.cancel = cancel;
    this.prepBudget = prepBudget;
    this.aborted = "";
    this.prepExpansions = 0;
    if (this.startDistance.length < graph.maxRegionNodes) {
      this.startDistance = new Float64Array(graph.maxRegionNodes);
      this.goalDistance = new Float64Array(graph.maxRegionNodes);
    }
    // On uniform-cost terrain, with both regions prepared and apart, the nodes' stored trees give the start
    // and goal links (distances are symmetric there) without two in-region searches per query.
    this.linksFromTrees = graph.uniformCost && this.startRegion !== this.goalRegion &&
      graph.isPrepared(this.startRegion) && graph.isPrepared(this.goalRegion);
    let spent = 0;
    let i0 = graph.regionNodeStart[this.goalRegion];
    let i1 = graph.regionNodeStart[this.goalRegion + 1];
    if (this.linksFromTrees) {
      for (let i = i0; i < i1; i++) this.goalDistance[i - i0] = graph.treeDistance(i, goalTile);
    } else {
      spent += graph.searchRegionFrom(goalTile, goalWs);
      for (let i = i0; i < i1; i++) this.goalDistance[i - i0] = goalWs.g[graph.nodeTile[i]];
    }
    this.configureLandmarks(i0, i1);
    i0 = graph.regionNodeStart[this.startRegion];
    i1 = graph.regionNodeStart[this.startRegion + 1];
    if (this.linksFromTrees) {
      for (let i = i0; i < i1; i++) this.startDistance[i - i0] = graph.treeDistance(i, startTile);
    } else {
      spent += graph.searchRegionFrom(startTile, ws);
      for (let i = i0; i < i1; i++) this.startDistance[i - i0] = ws.g[graph.nodeTile[i]];
    }
    this.startToGoal = this.startRegion === this.goalRegion ? ws.g[goalTile] : NaN;
    return spent;
  }

  /** Landmark distances to the goal through the goal region's nodes i0..i1; drops landmarks that miss it. */
  private configureLandmarks(i0: number, i1: number): void {
    const graph = this.graph!;
    const count = graph.landmarkCount;
    this.activeCount = 0;
    this.symmetric = graph.uniformCost;
    if (count === 0) return;
    if (this.activeLandmarks.length < count) {
      this.activeLandmarks = new Int32Array(count);
      this.landmarkToGoal = new Float64Array(count);
    }
    const d = graph.landmarkDistance;
    for (let l = 0; l < count; l++) {
      let best = Infinity;
      for (let i = i0; i < i1; i++) {
        const v = d[i * count + l] + this.goalDistance[i - i0];
        if (v < best) best = v;
      }
      if (best === Infinity) continue;
      this.activeLandmarks[this.activeCount] = l;
      this.landmarkToGoal[this.activeCount] = best;
      this.activeCount++;
    }
  }

  /** The abstract state of the start. */
  get start(): number {
    return this.startState;
  }

  /** The abstract state of the goal. */
  get goal(): number {
    return this.goalState;
  }

  /** The tile of an abstract state. */
  tileOf(state: number): number {
    if (state === this.startState) return this.startTile;
    if (state === this.goalState) return this.goalTile;
    return this.graph!.nodeTile[state];
  }

  /** Successors: region neighbours, crossings and the goal (see the class doc). */
  expand(state: number, out: Successors, _parent: number): number {
    const graph = this.graph!;
    const ids = out.ids;
    const costs = out.costs;
    let count = 0;
    if (state === this.goalState) return 0;
    if (state === this.startState) {
      const i0 = graph.regionNodeStart[this.startRegion];
      const i1 = graph.regionNodeStart[this.startRegion + 1];
      for (let i = i0; i < i1; i++) {
        ids[count] = i;
        costs[count] = this.startDistance[i - i0];
        count++;
      }
      if (this.startRegion === this.goalRegion) {
        ids[count] = this.goalState;
        costs[count] = this.startToGoal;
        count++;
      }
      return count;
    }
    if (this.aborted !== "") return 0;
    const region = graph.nodeRegion[state];
    if (!graph.isPrepared(region)) {
      if (this.cancel !== null && Atomics.load(this.cancel, 0) !== 0) {
        this.aborted = "cancelled";
        return 0;
      }
      if (this.prepExpansions >= this.prepBudget) {
        this.aborted = "budget";
        return 0;
      }
      this.prepExpansions += graph.prepareRegion(region);
    }
    const i0 = graph.regionNodeStart[region];
    count = graph.writeNeighbours(state, out, count);
    if (region === this.goalRegion) {
      ids[count] = this.goalState;
      costs[count] = this.goalDistance[state - i0];
      count++;
    }
    return count;
  }

  /**
   * Octile distance to the goal tile times the layer's minimum cost, fixed point, rounded down (as GridSpace),
   * raised to the best landmark bound when the graph has landmarks: |d(L, goal) - d(L, node)| (the reverse
   * form only on symmetric costs). A maximum of admissible, consistent bounds is both.
   */
  heuristic(state: number): number {
    const t = this.tileOf(state);
    const w = this.width;
    const y = (t / w) | 0;
    let dx = t - y * w - this.goalX;
    let dy = y - this.goalY;
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    let h = dx < dy
      ? dx * this.hDiagonal + (dy - dx) * this.hStraight
      : dy * this.hDiagonal + (dx - dy) * this.hStraight;
    const active = this.activeCount;
    if (active === 0 || state >= this.startState) return h;
    const graph = this.graph!;
    const count = graph.landmarkCount;
    const d = graph.landmarkDistance;
    const row = state * count;
    const toGoal = this.landmarkToGoal;
    const landmarks = this.activeLandmarks;
    for (let a = 0; a < active; a++) {
      const diff = toGoal[a] - d[row + landmarks[a]];
      if (diff > h) h = diff;
      else if (this.symmetric && -diff > h) h = -diff;
    }
    return h;
  }

  /** True for the goal state. */
  isGoal(state: number): boolean {
    return state === this.goalState;
  }
}
