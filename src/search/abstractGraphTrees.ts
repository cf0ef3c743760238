/**
 * The abstract graph's in-region shortest-path trees (abstractGraph.ts holds the graph and its distance blocks),
 * kept so refinement is a walk instead of a search: for node i and each tile of its region (local index in the
 * sector box, {@link PathTrees.stride} per node), the direction code (0..7, 3 bits: see readCode in
 * abstractGraphData.ts) of the step that entered the tile on the tree from node i. Entries of i's own tile and of
 * tiles outside the region are never read: a walk starts on a region tile (checked) and every tile of a region
 * is on each of its nodes' trees (regions are connected).
 *
 * Written per node the first time a walk needs it, not at preparation: in shared memory whose pages the system
 * backs only once written, so the trees hold memory for the nodes paths went through (written by whichever
 * worker came first, read by all), not 3 bits per tile and node of the map (6.3 bytes a tile over both built-in
 * classes at 1024^2).
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import { type RegionTable, sectorOfTile } from "../maps/regions.ts";
import { COST_SCALE, SearchWorkspace } from "./astar.ts";
import { DIAGONAL_STEP, readCode, treeBytes, writeCode } from "./abstractGraphData.ts";
import { SectorSpace } from "./sectorSpace.ts";

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
 * One workspace and sector space for every graph's tree writes in this thread (a walk may come between a graph's
 * block searches, so not the blocks' ones), and a node's packed trees.
 */
const treeWorkspace = new SearchWorkspace();
const treeSpace = new SectorSpace();
let treeScratch = new Uint8Array(0);

/** What the trees read of their graph (an AbstractGraph). */
export interface TreeGraph {
  /** The graph's region table. */
  readonly table: RegionTable;
  /** The layer whose costs the distances use. */
  readonly layer: PassLayer;
  /** Tile of each node. */
  readonly nodeTile: Int32Array;
  /** Region of each node. */
  readonly nodeRegion: Int32Array;
}

/**
 * Configures a sector space for region r (its sector box, the graph's region space restricted to r) and returns
 * it: the same exhaustive in-region search as the distance blocks', so a tree's parents are the block search's.
 */
export type SectorBox = (region: number, sector: SectorSpace) => SectorSpace;

/** Entries per node for `table`: sectorSize^2 rounded up to 8, so a node's tree is whole bytes. */
export function treeStride(table: RegionTable): number {
  return Math.ceil((table.sectorSize * table.sectorSize) / 8) * 8;
}

/** The lazily written shortest-path trees of one abstract graph (see the module doc). */
export class PathTrees {
  /** The 3-bit codes, {@link stride} entries per node, in shared memory. */
  readonly step: Uint8Array;
  /** 1 once node i's tree is written (set after it, read before a walk; shared like {@link step}). */
  readonly ready: Uint8Array;
  /** Entries per node in {@link step} ({@link treeStride}). */
  readonly stride: number;
  private readonly graph: TreeGraph;
  private readonly box: SectorBox;

  /**
   * Trees of `graph`'s `nodeCount` nodes: `shared`'s arrays (another thread's graph: trees it wrote serve this
   * one), or new empty ones in shared memory (its pages are backed only once written, and sharing needs no copy).
   */
  constructor(
    graph: TreeGraph,
    box: SectorBox,
    nodeCount: number,
    shared: { treeStep: Uint8Array; treeReady: Uint8Array } | null = null,
  ) {
    this.graph = graph;
    this.box = box;
    this.stride = treeStride(graph.table);
    this.step = shared?.treeStep ?? new Uint8Array(new SharedArrayBuffer(treeBytes(nodeCount, this.stride)));
    this.ready = shared?.treeReady ?? new Uint8Array(new SharedArrayBuffer(nodeCount));
  }

  /**
   * Writes the tiles of node i's tree path walked back from `tile` (same region, block prepared) toward node
   * i: `tile` first, node i's tile left out. Returns the index after the last tile written.
   */
  walk(i: number, tile: number, out: Int32Array, at: number): number {
    if (!this.onRegion(i, tile)) throw new RangeError(`tile ${tile} is not on node ${i}'s region tree`);
    this.ensure(i);
    const { table, nodeRegion, nodeTile } = this.graph;
    const { width, sectorSize, sectorsX } = table;
    const sector = table.regionSector[nodeRegion[i]];
    const x0 = (sector % sectorsX) * sectorSize, y0 = Math.floor(sector / sectorsX) * sectorSize;
    const base = i * this.stride;
    const source = nodeTile[i];
    let n = at;
    for (let t = tile; t !== source;) {
      if (n - at >= this.stride) throw new RangeError(`node ${i}'s region tree has a cycle at tile ${t}`);
      out[n++] = t;
      const y = (t / width) | 0;
      const code = readCode(this.step, base + (y - y0) * sectorSize + (t - y * width - x0));
      t -= STEP_DY[code] * width + STEP_DX[code];
    }
    return n;
  }

  /**
   * The in-region distance (fixed point) from node i to `tile` (same region, block prepared), summed along
   * node i's tree with the grid's own step costs, so it equals what an in-region search finds; Infinity off the
   * region.
   */
  distance(i: number, tile: number): number {
    const { table, layer, nodeRegion, nodeTile } = this.graph;
    const { width, sectorSize, sectorsX } = table;
    const sector = table.regionSector[nodeRegion[i]];
    const x0 = (sector % sectorsX) * sectorSize, y0 = Math.floor(sector / sectorsX) * sectorSize;
    const base = i * this.stride;
    const source = nodeTile[i];
    const tileCost = layer.tileCost;
    if (!this.onRegion(i, tile)) return Infinity;
    this.ensure(i);
    let cost = 0;
    for (let t = tile, steps = 0; t !== source; steps++) {
      if (steps >= this.stride) return Infinity; // a damaged tree; never for a prepared block
      const y = (t / width) | 0;
      const code = readCode(this.step, base + (y - y0) * sectorSize + (t - y * width - x0));
      cost += Math.round(tileCost[t] * (code < 4 ? COST_SCALE : DIAGONAL_STEP));
      t -= STEP_DY[code] * width + STEP_DX[code];
    }
    return cost;
  }

  /**
   * Writes node i's tree unless written already (by this thread or another sharing the graph): the exhaustive
   * in-region search of its distance block run again (same code, same start: the same parents), its codes
   * packed in a scratch and copied as whole bytes (a node's entries start on a byte), so two threads writing
   * it at once write the same bytes and neither undoes the other's; the ready flag is set after them.
   */
  private ensure(i: number): void {
    if (Atomics.load(this.ready, i) === 1) return;
    const { table, nodeRegion, nodeTile } = this.graph;
    const region = nodeRegion[i];
    const { width, height, sectorSize, sectorsX, regionLocal } = table;
    const sector = table.regionSector[region];
    // The box is the region's sector, where its tiles are the ones with its local id.
    const local = region - table.sectorRegionStart[sector];
    const x0 = (sector % sectorsX) * sectorSize, y0 = Math.floor(sector / sectorsX) * sectorSize;
    const x1 = Math.min(width, x0 + sectorSize), y1 = Math.min(height, y0 + sectorSize);
    const bw = x1 - x0;
    const space = this.box(region, treeSpace);
    const ws = treeWorkspace;
    const nodeBytes = (this.stride * 3) >> 3;
    // readCode/writeCode touch the byte after an entry: one spare.
    if (treeScratch.length < nodeBytes + 1) treeScratch = new Uint8Array(nodeBytes + 1);
    const scratch = treeScratch;
    scratch.fill(0);
    space.exhaustiveFrom(ws, space.stateOf(nodeTile[i]));
    const parent = ws.parent;
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const t = y * width + x;
        const l = (y - y0) * bw + (x - x0);
        if (regionLocal[t] !== local || !ws.reached(l) || parent[l] < 0) continue;
        const pl = parent[l];
        const py = (pl / bw) | 0;
        writeCode(scratch, (y - y0) * sectorSize + (x - x0), stepCode(x - x0 - (pl - py * bw), y - y0 - py));
      }
    }
    this.step.set(scratch.subarray(0, nodeBytes), i * nodeBytes);
    Atomics.store(this.ready, i, 1);
  }

  /** True if `tile` is a tile of node i's region (so on node i's tree). */
  private onRegion(i: number, tile: number): boolean {
    const region = this.graph.nodeRegion[i];
    const t = this.graph.table;
    if (t.regionLocal[tile] !== region - t.sectorRegionStart[t.regionSector[region]]) return false;
    return sectorOfTile(t, tile) === t.regionSector[region];
  }
}
