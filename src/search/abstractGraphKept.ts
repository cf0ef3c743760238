/**
 * Taking distance blocks from a kept graph file of an earlier version of the same map (service/graphFiles.ts),
 * when that version's graph, table and layer are no longer in memory (after a restart or an eviction): a patched
 * version's preparation then still costs the patch's regions, not the map's.
 *
 * A region's block depends only on its sector box: which tiles are the region's (the sector-local region ids),
 * their costs and their clearances ({@link reuseRegion} compares exactly those against a previous table and
 * layer). Without the previous table and layer, a graph file keeps a print of each sector box instead: two
 * independent 32-bit hashes of the box's local region ids, cost bits and clearance bits ({@link SectorPrinter}).
 * A block is taken when the sector's prints are equal, the region has the same sector-local id and the same node
 * tiles. Two different boxes pass only if both 32-bit hashes collide at once (odds about 2^-64 a changed sector).
 *
 * @module
 */
import { CLEARANCE_VALUES, type PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import type { AbstractGraph, SharedGraphData } from "./abstractGraph.ts";

/** What a kept graph file lends a later version's preparation besides the graph. */
export interface KeptGraph {
  /** The graph (fully prepared). */
  graph: SharedGraphData;
  /** Its table's sectorRegionStart (regions of sector s: start[s] .. start[s + 1]). */
  sectorRegionStart: Int32Array;
  /** Its sector prints ({@link SectorPrinter}): 2 per sector. */
  sectorPrint: Uint32Array;
  /** Its layer's minCost (the graph's costs are compared only at the same scale). */
  minCost: number;
  /** Its map's width, in tiles. */
  width: number;
}

/** The float32 bits of each clearance code's value: prints hash these, as they did when layers stored floats. */
const CLEARANCE_BITS = new Uint32Array(
  CLEARANCE_VALUES.buffer,
  CLEARANCE_VALUES.byteOffset,
  CLEARANCE_VALUES.length,
);

/** Zeroed prints for `table`'s sectors, in shared memory (filled by the builders: {@link SectorPrinter}). */
export function printArray(table: RegionTable): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(8 * table.sectorsX * table.sectorsY));
}

/**
 * Writes sector prints into `out` (2 per sector): two 32-bit hashes (different multipliers and seeds) of each tile's
 * local region id, cost bits and clearance bits, row by row over the sector box. Builders print the sectors of
 * their regions as they fill them (a sector printed twice gets the same numbers); a sector without regions keeps 0.
 */
export class SectorPrinter {
  private readonly cost: Uint32Array;
  private readonly clear: Uint8Array;

  /** A printer of `table`'s sectors over `layer` into `out`. */
  constructor(private readonly table: RegionTable, layer: PassLayer, private readonly out: Uint32Array) {
    this.cost = new Uint32Array(layer.tileCost.buffer, layer.tileCost.byteOffset, layer.tileCost.length);
    this.clear = layer.clearanceCode;
  }

  /** Writes sector s's prints. */
  print(s: number): void {
    const { width, height, sectorSize, sectorsX, regionLocal } = this.table;
    const cost = this.cost, clear = this.clear;
    const x0 = (s % sectorsX) * sectorSize, y0 = Math.floor(s / sectorsX) * sectorSize;
    const x1 = Math.min(width, x0 + sectorSize), y1 = Math.min(height, y0 + sectorSize);
    let a = 0x9e3779b9 ^ s, b = 0x85ebca6b ^ Math.imul(s, 0x27d4eb2f);
    for (let y = y0; y < y1; y++) {
      for (let t = y * width + x0, e = y * width + x1; t < e; t++) {
        a = Math.imul(a ^ regionLocal[t], 0x01000193);
        a = Math.imul(a ^ cost[t], 0x01000193);
        const c = CLEARANCE_BITS[clear[t]];
        a = Math.imul(a ^ c, 0x01000193);
        a ^= a >>> 15;
        b = Math.imul(b ^ regionLocal[t], 0xcc9e2d51) + 0x6b43a9b5;
        b = Math.imul(b ^ cost[t], 0xcc9e2d51) + 0x6b43a9b5;
        b = Math.imul(b ^ c, 0xcc9e2d51) + 0x6b43a9b5;
        b ^= b >>> 13;
      }
    }
    this.out[2 * s] = a >>> 0;
    this.out[2 * s + 1] = b >>> 0;
  }
}

/**
 * Whether `kept` fits `graph` at all: the same tile count, sector layout, neighbourhood and cost scale. (The
 * caller matched the terrain table and class by the file's name.)
 */
export function keptFits(graph: AbstractGraph, kept: KeptGraph): boolean {
  const t = graph.table;
  return kept.graph.tileCount === t.regionLocal.length && kept.width === t.width &&
    kept.graph.neighborhood === graph.neighborhood &&
    kept.sectorRegionStart.length === t.sectorRegionStart.length &&
    kept.sectorPrint.length === 2 * (t.sectorRegionStart.length - 1) && kept.minCost === graph.layer.minCost;
}

/**
 * Takes region `region`'s block from `kept` into `graph` when the sector's prints match (`prints`: `graph`'s own,
 * already written for this sector), the region has the same sector-local id and the same node tiles. Returns
 * whether it did.
 */
export function reuseKept(
  graph: AbstractGraph,
  region: number,
  kept: KeptGraph,
  prints: Uint32Array,
): boolean {
  if (graph.isPrepared(region)) return true;
  const t = graph.table;
  const s = t.regionSector[region];
  if (prints[2 * s] !== kept.sectorPrint[2 * s] || prints[2 * s + 1] !== kept.sectorPrint[2 * s + 1]) {
    return false;
  }
  const oldRegion = kept.sectorRegionStart[s] + (region - t.sectorRegionStart[s]);
  if (oldRegion >= kept.sectorRegionStart[s + 1]) return false;
  const old = kept.graph;
  const i0 = graph.regionNodeStart[region], k = graph.regionNodeStart[region + 1] - i0;
  const o0 = old.regionNodeStart[oldRegion];
  if (old.regionNodeStart[oldRegion + 1] - o0 !== k) return false;
  for (let j = 0; j < k; j++) if (graph.nodeTile[i0 + j] !== old.nodeTile[o0 + j]) return false;
  graph.takeBlock(region, old.distance, old.distanceOffset[oldRegion]);
  return true;
}

/**
 * Takes region `region`'s block into `graph` from `old` (a prepared graph of an earlier version of the map in
 * memory, with its table and layer: the same size, sectors and neighbourhood, {@link canReuse}) when nothing it
 * depends on changed: the same region (sector and local id) with the same nodes, and over the sector box the same
 * open tiles, costs and clearances. Returns whether it did (the block then equals what prepareRegion would
 * compute: the same searches over the same tiles).
 */
export function reuseRegion(graph: AbstractGraph, region: number, old: AbstractGraph): boolean {
  if (graph.isPrepared(region)) return true;
  const t = graph.table, ot = old.table;
  const s = t.regionSector[region];
  const oldRegion = ot.sectorRegionStart[s] + (region - t.sectorRegionStart[s]);
  if (oldRegion >= ot.sectorRegionStart[s + 1] || !old.isPrepared(oldRegion)) return false;
  const i0 = graph.regionNodeStart[region], k = graph.regionNodeStart[region + 1] - i0;
  const o0 = old.regionNodeStart[oldRegion];
  if (old.regionNodeStart[oldRegion + 1] - o0 !== k) return false;
  for (let j = 0; j < k; j++) if (graph.nodeTile[i0 + j] !== old.nodeTile[o0 + j]) return false;
  const { width, height, sectorSize, sectorsX } = t;
  const x0 = (s % sectorsX) * sectorSize, y0 = Math.floor(s / sectorsX) * sectorSize;
  const x1 = Math.min(width, x0 + sectorSize), y1 = Math.min(height, y0 + sectorSize);
  const a = graph.layer, b = old.layer;
  for (let y = y0; y < y1; y++) {
    for (let tile = y * width + x0, end = y * width + x1; tile < end; tile++) {
      if (
        t.regionLocal[tile] !== ot.regionLocal[tile] || a.tileCost[tile] !== b.tileCost[tile] ||
        a.clearanceCode[tile] !== b.clearanceCode[tile]
      ) return false;
    }
  }
  graph.takeBlock(region, old.blockOf(oldRegion), 0);
  return true;
}

/** Whether `old` can lend `graph` its blocks ({@link reuseRegion}): same size, sectors and costs' scale. */
export function canReuse(graph: AbstractGraph, old: AbstractGraph): boolean {
  const t = graph.table, ot = old.table;
  return old !== graph && t.width === ot.width && t.height === ot.height && t.sectorSize === ot.sectorSize &&
    t.clearanceClass === ot.clearanceClass && graph.neighborhood === old.neighborhood &&
    graph.layer.minCost === old.layer.minCost && old.allPrepared;
}
