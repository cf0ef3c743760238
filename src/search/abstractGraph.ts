/**
 * The abstract graph of a region table (HPA*-style) and its one-off preparation.
 *
 * Nodes are entrance crossing tiles and crossing edges join the two tiles of a crossing pair (see
 * entranceNodes.ts). Intra-region edges join every two nodes of the same region, costed with the true
 * shortest distance inside the region: exhaustive grid searches restricted to the region, run lazily the
 * first time a region is expanded, then kept together with their shortest-path trees (refinement walks
 * them: abstractGraphTrees.ts). An {@link AbstractGraph} belongs to one table and layer, so the work is done
 * once per map version;
 * the ALT landmark distances of the abstract heuristic are prepared the same way (landmarks.ts). The A*
 * space of one query over the graph is {@link AbstractSpace} (abstractSpace.ts).
 *
 * All costs are the A* core's fixed-point integers, so abstract and grid costs compare exactly. The payload
 * shared between workers and the compact encodings (Uint32 blocks, 3-bit trees) are in abstractGraphData.ts.
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import { regionAt, type RegionTable } from "../maps/regions.ts";
import { astar, type SearchLimits, type SearchResult, SearchWorkspace, type Successors } from "./astar.ts";
import {
  type DistanceBlocks,
  distanceBlocks,
  type PlacedNodes,
  shareArray,
  type SharedGraphData,
  uniformScan,
} from "./abstractGraphData.ts";
import { fillBlock } from "./abstractGraphBlocks.ts";
import { PathTrees } from "./abstractGraphTrees.ts";
import { DEFAULT_SAMPLING, type EntranceSampling, placeEntranceNodes } from "./entranceNodes.ts";
import type { Neighborhood } from "./gridSpace.ts";
import { LandmarkJob, type LandmarkTables } from "./landmarks.ts";

export {
  type DistanceBlocks,
  type PlacedNodes,
  sharedGraphBytes,
  type SharedGraphData,
  uniformScan,
} from "./abstractGraphData.ts";
import { RegionSpace } from "./restrictedGrid.ts";
import { SectorSpace } from "./sectorSpace.ts";

/**
 * One workspace and sector space for every graph's distance-block searches in this thread: a block search runs
 * to completion and is read at once (prepareRegion) over sector-local ids, so the workspace holds one sector
 * box's states (sectorSize^2), whatever the map size. The searches that only fill distances
 * are abstractGraphBlocks.ts's.
 */
const blockWorkspace = new SearchWorkspace();
const blockSpace = new SectorSpace();
/** The current region's node tiles as the block space's local states (grown as needed). */
let blockTargets = new Int32Array(64);

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
  private readonly distance: DistanceBlocks;
  /** 1 once region r's block is computed. */
  private readonly ready: Uint8Array;
  /**
   * Shortest-path trees of the distance blocks, written per node the first time a walk needs it, in shared
   * memory (abstractGraphTrees.ts).
   */
  private readonly trees: PathTrees;
  /** Landmarks of the ALT heuristic (0 until {@link prepareLandmarks}). */
  landmarkCount = 0;
  /**
   * The abstract distance from landmark l to node n is landmarkBase[nodeRegion[n] * landmarkCount + l] +
   * landmarkDistance[n * landmarkCount + l] (Infinity: unreachable; see landmarks.ts, PackedLandmarks).
   */
  landmarkDistance: Uint32Array | Float64Array = new Uint32Array(0);
  /** Least landmark distance per region and landmark (see {@link landmarkDistance}). */
  landmarkBase: Float64Array = new Float64Array(0);
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
  private readonly clearance: number;

  /**
   * Places the entrance nodes and crossing edges (no distances yet: those come lazily, per region); or, given
   * `shared` (another worker's prepared graph of the same table and layer), adopts its arrays: fully prepared,
   * nothing built (a skeleton, `shared.partial`: its blocks still to fill, in place); given `placed` (a finished
   * AbstractGraphBuild's, abstractGraphBuild.ts), takes its nodes. `sharedBlocks` puts the distance blocks and
   * trees in shared memory, for a {@link skeleton} that builders fill in parallel.
   */
  constructor(
    table: RegionTable,
    layer: PassLayer,
    neighborhood: Neighborhood = 8,
    sampling: EntranceSampling = DEFAULT_SAMPLING,
    shared: SharedGraphData | null = null,
    placed: PlacedNodes | null = null,
    sharedBlocks = false,
  ) {
    if (layer.width !== table.width || layer.height !== table.height) {
      throw new RangeError("AbstractGraph: layer and table sizes differ");
    }
    this.table = table;
    this.layer = layer;
    this.neighborhood = neighborhood;
    this.clearance = table.clearanceClass;
    const { regionLocal, regionCount } = table;
    const box = (region: number, sector: SectorSpace) => this.sectorBox(region, sector);
    if (shared !== null) {
      if (shared.neighborhood !== neighborhood || shared.tileCount !== regionLocal.length) {
        throw new RangeError("AbstractGraph: the shared graph is of another layer or neighbourhood");
      }
      this.nodeCount = shared.nodeCount;
      this.nodeTile = shared.nodeTile;
      this.nodeRegion = shared.nodeRegion;
      this.regionNodeStart = shared.regionNodeStart;
      this.crossStart = shared.crossStart;
      this.crossTarget = shared.crossTarget;
      this.crossCost = shared.crossCost;
      this.maxRegionNodes = shared.maxRegionNodes;
      this.maxCrossings = shared.maxCrossings;
      this.distanceOffset = shared.distanceOffset;
      this.distance = shared.distance;
      this.trees = new PathTrees(this, box, shared.nodeCount, shared);
      const partial = shared.partial === true;
      this.ready = new Uint8Array(regionCount).fill(partial ? 0 : 1);
      this.preparedRegions = partial ? 0 : regionCount;
      this.nextRegion = partial ? 0 : regionCount;
      this.prepExpansions = shared.prepExpansions;
      this.landmarkCount = shared.landmarkCount;
      this.landmarkDistance = shared.landmarkDistance;
      this.landmarkBase = shared.landmarkBase;
      this.uniformCost = shared.uniformCost;
      this.regionSpace.configure(layer, table, this.clearance, neighborhood);
      return;
    }
    const nodes = placed?.nodes ?? placeEntranceNodes(table, layer, sampling);
    const { nodeCount, regionNodeStart } = nodes;

    // Distance block offsets.
    const distanceOffset = new Float64Array(regionCount);
    let total = 0;
    for (let r = 0; r < regionCount; r++) {
      distanceOffset[r] = total;
      const k = regionNodeStart[r + 1] - regionNodeStart[r];
      total += k * k;
    }

    this.nodeCount = nodeCount;
    this.nodeTile = nodes.nodeTile;
    this.nodeRegion = nodes.nodeRegion;
    this.regionNodeStart = regionNodeStart;
    this.crossStart = nodes.crossStart;
    this.crossTarget = nodes.crossTarget;
    this.crossCost = nodes.crossCost;
    this.maxRegionNodes = nodes.maxRegionNodes;
    this.maxCrossings = nodes.maxCrossings;
    this.distanceOffset = distanceOffset;
    this.distance = distanceBlocks(table, layer, total, sharedBlocks);
    this.ready = new Uint8Array(regionCount);
    this.trees = new PathTrees(this, box, nodeCount);
    this.uniformCost = placed?.uniformCost ?? uniformScan(table, layer, 0, regionLocal.length);
    this.regionSpace.configure(layer, table, this.clearance, neighborhood);
  }

  /**
   * The prepared graph's arrays copied once into SharedArrayBuffers, for other workers to adopt
   * ({@link AbstractGraph} constructor) instead of preparing their own. Throws unless fully prepared.
   */
  toShared(): SharedGraphData {
    if (!this.allPrepared || (this.landmarkJob !== null)) {
      throw new Error("AbstractGraph.toShared: the graph is not fully prepared");
    }
    return this.#data();
  }

  /**
   * The graph before its blocks (built with `sharedBlocks`, nothing prepared): builders adopt it (constructor's
   * `shared`) and fill their share of the regions' blocks and trees in place (abstractGraphBuild.ts).
   */
  skeleton(): SharedGraphData {
    if (
      !(this.distance.buffer instanceof SharedArrayBuffer) ||
      !(this.trees.step.buffer instanceof SharedArrayBuffer)
    ) {
      throw new Error("AbstractGraph.skeleton: the blocks are not in shared memory");
    }
    if (this.preparedRegions > 0) throw new Error("AbstractGraph.skeleton: blocks were prepared already");
    return { ...this.#data(), partial: true };
  }

  #data(): SharedGraphData {
    return {
      kind: "abstractGraph",
      neighborhood: this.neighborhood,
      nodeCount: this.nodeCount,
      nodeTile: shareArray(this.nodeTile),
      nodeRegion: shareArray(this.nodeRegion),
      tileCount: this.table.regionLocal.length,
      regionNodeStart: shareArray(this.regionNodeStart),
      crossStart: shareArray(this.crossStart),
      crossTarget: shareArray(this.crossTarget),
      crossCost: shareArray(this.crossCost),
      maxRegionNodes: this.maxRegionNodes,
      maxCrossings: this.maxCrossings,
      distanceOffset: shareArray(this.distanceOffset),
      distance: shareArray(this.distance),
      treeStep: shareArray(this.trees.step),
      treeReady: shareArray(this.trees.ready),
      landmarkCount: this.landmarkCount,
      landmarkBase: shareArray(this.landmarkBase),
      landmarkDistance: shareArray(this.landmarkDistance),
      uniformCost: this.uniformCost,
      prepExpansions: this.prepExpansions,
    };
  }

  /**
   * The node on `tile`, or -1 (a scan of its region's few nodes: a per-tile index would cost 4 bytes a tile per
   * clearance class for what only the construction needs).
   */
  nodeAt(tile: number): number {
    const region = regionAt(this.table, tile);
    if (region < 0) return -1;
    for (let i = this.regionNodeStart[region], end = this.regionNodeStart[region + 1]; i < end; i++) {
      if (this.nodeTile[i] === tile) return i;
    }
    return -1;
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
    // Local state ids over the sector box: the block searches touch a few kilobytes, not map-sized arrays.
    const space = this.sectorBox(region, blockSpace);
    const local = blockTargets.length >= k ? blockTargets : (blockTargets = new Int32Array(k * 2));
    for (let j = 0; j < k; j++) local[j] = space.stateOf(this.nodeTile[i0 + j]);
    // On uniform-cost terrain d(i, j) = d(j, i) exactly (a path reversed enters tiles of the same cost): half the
    // pairs are searched (abstractGraphBlocks.ts).
    const spent = fillBlock(space, blockWorkspace, this.distance, off, k, local, this.uniformCost);
    this.ready[region] = 1;
    this.prepExpansions += spent;
    this.preparedRegions++;
    return spent;
  }

  /**
   * Takes region r's k x k block from `from` at `offset` (another graph's, checked by the caller to equal what
   * {@link prepareRegion} would compute: abstractGraphKept.ts).
   */
  takeBlock(region: number, from: DistanceBlocks, offset: number): void {
    if (this.ready[region] === 1) return;
    const k = this.regionNodeStart[region + 1] - this.regionNodeStart[region];
    this.distance.set(from.subarray(offset, offset + k * k), this.distanceOffset[region]);
    this.markPrepared(region);
  }

  /** Region r's prepared k x k block (a view) for another graph to take ({@link takeBlock}). */
  blockOf(region: number): DistanceBlocks {
    const k = this.regionNodeStart[region + 1] - this.regionNodeStart[region];
    const off = this.distanceOffset[region];
    return this.distance.subarray(off, off + k * k);
  }

  /** Counts region r's block as computed (its bytes were written by {@link takeBlock} or restored from a file). */
  markPrepared(region: number): void {
    if (this.ready[region] === 1) return;
    this.ready[region] = 1;
    this.preparedRegions++;
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
    return this.trees.walk(i, tile, out, at);
  }

  /**
   * The in-region distance (fixed point) from node i to `tile` (same region, block prepared), summed along
   * node i's stored tree with the grid's own step costs, so it equals what an in-region search finds.
   */
  treeDistance(i: number, tile: number): number {
    return this.trees.distance(i, tile);
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
    if (this.nodeCount === 0 || count <= 0 || this.landmarkCount > 0) {
      return { done: true, landmarkExpansions: 0 };
    }
    let job = this.landmarkJob;
    if (job === null || job.count !== count) {
      job = new LandmarkJob(this, count, this.wideBlocks);
      this.landmarkJob = job;
    }
    const spent = job.run(stop);
    if (!job.finished) return { done: false, landmarkExpansions: spent };
    this.adoptLandmarks(job.result());
    this.landmarkJob = null;
    return { done: true, landmarkExpansions: spent };
  }

  /** Takes landmark tables made elsewhere (the map builders' parallel rounds, abstractGraphBuild.ts). */
  adoptLandmarks(tables: LandmarkTables): void {
    this.landmarkBase = tables.base;
    this.landmarkDistance = tables.delta;
    this.landmarkCount = tables.count;
  }

  /** Width of the map, in tiles. */
  get width(): number {
    return this.table.width;
  }

  /** True when the distance blocks are Float64 (costly tiles; landmark deltas are then Float64 too). */
  get wideBlocks(): boolean {
    return this.distance instanceof Float64Array;
  }

  /**
   * The distance blocks in place (region r's k x k block, row-major by local node index, at distanceOffset[r]):
   * for the landmark searches, which read them without {@link writeNeighbours}'s copy.
   */
  blockTables(): { distance: DistanceBlocks; distanceOffset: Float64Array } {
    return { distance: this.distance, distanceOffset: this.distanceOffset };
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
    const space = this.regionSpace.restrict(regionAt(this.table, from), to);
    return astar(space, ws, [from], limits, out);
  }

  /**
   * Exhaustive in-region search from `tile` into `ws` over `sector`'s local ids (configured here for the
   * tile's region box): the distance to tile t of the region is ws.g[sector.stateOf(t)], its tree parent
   * sector.tileOf(ws.parent[sector.stateOf(t)]). The workspace holds one sector box, not the map. Returns the
   * expansions.
   */
  searchRegionFrom(tile: number, ws: SearchWorkspace, sector: SectorSpace): number {
    this.sectorBox(regionAt(this.table, tile), sector);
    return sector.exhaustiveFrom(ws, sector.stateOf(tile));
  }

  /** Configures `sector` for region r (its sector box, the region space restricted to r); returns it. */
  private sectorBox(region: number, sector: SectorSpace): SectorSpace {
    const { width, height, sectorSize, sectorsX } = this.table;
    const s = this.table.regionSector[region];
    const x0 = (s % sectorsX) * sectorSize, y0 = Math.floor(s / sectorsX) * sectorSize;
    const x1 = Math.min(width, x0 + sectorSize), y1 = Math.min(height, y0 + sectorSize);
    return sector.configure(this.regionSpace.restrict(region), width, x0, y0, x1, y1);
  }
}
