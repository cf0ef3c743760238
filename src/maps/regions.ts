/**
 * Region-connectivity tables: which tiles a unit of one clearance class can reach from which, answered in
 * O(1), plus the sector/entrance graph a hierarchical (HPA*-style) search can run on.
 *
 * A tile is open for clearance class c iff tileCost > 0 and clearance >= c. Movement is 8-connected without
 * corner cutting: a diagonal step needs both orthogonal neighbours open, so every diagonal step can be
 * replaced by two orthogonal ones and the connectivity equals 4-connectivity. All flood fills here are
 * therefore 4-connected.
 *
 * Structure: the map is cut into sectorSize x sectorSize sectors (row-major sector index
 * `sy * sectorsX + sx`). Each sector's open tiles are split into the connected sub-regions of the sector
 * alone ("regions"). Regions are numbered sector by sector, and inside a sector in row-major order of their
 * first tile, so the numbering is a pure function of the open tile set. Regions of adjacent sectors that
 * touch across the shared border are linked; components are the connected components of that graph.
 *
 * Everything is plain data (numbers and SharedArrayBuffer-backed typed arrays), so a table can be posted to
 * workers once.
 *
 * This module holds the table's type and the queries on it; regionBuild.ts builds a table, regionUpdate.ts
 * brings one up to date after a map edit.
 *
 * @module
 */

import type { PassLayer } from "./grid.ts";

/** Default sector side in tiles. */
export const DEFAULT_SECTOR_SIZE = 16;

/**
 * The region table of one pass layer and clearance class.
 *
 * Entrances: for each border between two side-by-side sectors, each maximal run of consecutive tile pairs
 * straddling the border with both tiles open is one entrance. All pairs of a run are connected on each side,
 * so an entrance links exactly one region A (in the upper / left sector, the lower region index) with one
 * region B. Entrance i has `entranceRegionA[i] < entranceRegionB[i]`, a representative crossing pair at the
 * run's middle (`entranceTileA[i]` in region A, `entranceTileB[i]` in region B, 4-adjacent) and the run's
 * length in tiles. Entrances are sorted by (regionA, regionB), and within that by border position.
 *
 * Abstract graph: CSR over regions. The neighbours of region r are `edgeTarget[edgeStart[r] ..
 * edgeStart[r + 1])` in increasing order, each listed once. For edge e, the entrances between r and
 * edgeTarget[e] are indices `edgeEntranceStart[e] .. edgeEntranceStart[e] + edgeEntranceCount[e]` (their A
 * side is min(r, edgeTarget[e])).
 *
 * Use the counts, not the array lengths: sharedArray allocates at least one element, so an array whose count
 * is 0 has length 1.
 */
export interface RegionTable {
  /** Columns of the map. */
  width: number;
  /** Rows of the map. */
  height: number;
  /** The clearance threshold the table was built for (see clearanceClass). */
  clearanceClass: number;
  /** Sector side in tiles. */
  sectorSize: number;
  /** Sectors per row: ceil(width / sectorSize). */
  sectorsX: number;
  /** Sectors per column: ceil(height / sectorSize). */
  sectorsY: number;
  /** Number of open tiles. */
  openTileCount: number;
  /** Number of regions. */
  regionCount: number;
  /** Number of connected components. */
  componentCount: number;
  /** Number of entrances. */
  entranceCount: number;
  /**
   * Region per tile as an index among its sector's regions (region = sectorRegionStart[sector] + local id), or
   * {@link RegionTable.closedLocal} for closed tiles: one byte a tile (two for sectors over 22 tiles a side)
   * instead of a 32-bit region index. Read a tile's region with {@link regionAt}.
   */
  regionLocal: LocalRegionIds;
  /** The local id of a closed tile: every bit of regionLocal's element set (255 or 65535). */
  closedLocal: number;
  /** Regions of sector s are `sectorRegionStart[s] .. sectorRegionStart[s + 1]`; length sectors + 1. */
  sectorRegionStart: Int32Array;
  /** Sector index per region. */
  regionSector: Int32Array;
  /** Number of tiles per region. */
  regionTileCount: Int32Array;
  /** A representative tile per region: its first tile in row-major order. */
  regionTile: Int32Array;
  /** Component label per region, 0 .. componentCount - 1, numbered in order of their first region. */
  regionComponent: Int32Array;
  /** CSR offsets into edgeTarget per region; length regionCount + 1. */
  edgeStart: Int32Array;
  /** Neighbouring region per edge. */
  edgeTarget: Int32Array;
  /** First entrance of each edge's region pair. */
  edgeEntranceStart: Int32Array;
  /** Number of entrances of each edge's region pair. */
  edgeEntranceCount: Int32Array;
  /** Lower region index of each entrance. */
  entranceRegionA: Int32Array;
  /** Higher region index of each entrance. */
  entranceRegionB: Int32Array;
  /** The crossing pair's tile in region A. */
  entranceTileA: Int32Array;
  /** The crossing pair's tile in region B. */
  entranceTileB: Int32Array;
  /** Length of the entrance's run in tiles. */
  entranceLength: Int32Array;
}

/** Per-tile local region ids (see {@link RegionTable.regionLocal}). */
export type LocalRegionIds = Uint8Array | Uint16Array;

/**
 * A zeroed shared array for the local region ids of `tiles` tiles in sectors of `sectorSize`: Uint8 when a
 * sector's regions (at most half its tiles, rounded up: a checkerboard) leave 255 free for closed tiles.
 */
export function localRegionIds(sectorSize: number, tiles: number): LocalRegionIds {
  if (Math.ceil((sectorSize * sectorSize) / 2) <= 254) return new Uint8Array(new SharedArrayBuffer(tiles));
  if (Math.ceil((sectorSize * sectorSize) / 2) <= 65534) {
    return new Uint16Array(new SharedArrayBuffer(2 * tiles));
  }
  throw new RangeError(`region tables: sectorSize ${sectorSize} is over 361 tiles`);
}

/** The closed-tile id of a local id array (every bit set). */
export function closedLocalId(ids: LocalRegionIds): number {
  return ids instanceof Uint8Array ? 0xff : 0xffff;
}

/** The sector index of a tile. */
export function sectorOfTile(table: RegionTable, tile: number): number {
  const w = table.width, size = table.sectorSize;
  const y = (tile / w) | 0;
  return ((y / size) | 0) * table.sectorsX + (((tile - y * w) / size) | 0);
}

/** The region index of a tile; -1 if it is closed (or off the map). */
export function regionAt(table: RegionTable, tile: number): number {
  const local = table.regionLocal[tile];
  if (local === undefined || local === table.closedLocal) return -1;
  return table.sectorRegionStart[sectorOfTile(table, tile)] + local;
}

/** True if the tile is open for the table's class (on the map and in a region). */
export function isOpenTile(table: RegionTable, tile: number): boolean {
  const local = table.regionLocal[tile];
  return local !== undefined && local !== table.closedLocal;
}

/** True if both tiles are open and in the same connected component. */
export function sameComponent(table: RegionTable, tileA: number, tileB: number): boolean {
  const a = regionAt(table, tileA);
  const b = regionAt(table, tileB);
  return a >= 0 && b >= 0 && table.regionComponent[a] === table.regionComponent[b];
}

/** The component of a tile, or -1 if it is closed (or out of range). */
export function componentOfTile(table: RegionTable, tile: number): number {
  const region = regionAt(table, tile);
  return region < 0 ? -1 : table.regionComponent[region];
}

/**
 * The open tile of `component` whose center (x + 0.5, y + 0.5) is nearest (Euclidean) to the point
 * (gx, gy) in tile coordinates; ties go to the lower tile index. -1 if the component has no tiles.
 * Visits only sectors holding a region of the component, nearest first, and stops when a sector's
 * rectangle is farther than the best tile found.
 */
export function nearestOpenTileInComponent(
  table: RegionTable,
  layer: PassLayer,
  component: number,
  gx: number,
  gy: number,
): number {
  const { width, height, sectorSize, sectorsX, regionLocal, closedLocal, regionComponent, regionSector } =
    table;
  if (layer.width !== width || layer.height !== height) {
    throw new RangeError(`nearestOpenTileInComponent: layer and table sizes differ`);
  }
  // Sectors with a region of the component (regions are grouped by sector, so duplicates are adjacent).
  const candidates: number[] = [];
  const bounds: number[] = [];
  for (let r = 0; r < table.regionCount; r++) {
    if (regionComponent[r] !== component) continue;
    const s = regionSector[r];
    if (candidates.length > 0 && candidates[candidates.length - 1] === s) continue;
    candidates.push(s);
    const sx = s % sectorsX;
    const sy = (s - sx) / sectorsX;
    // Distance from the point to the box of the sector's tile centers.
    const cx0 = sx * sectorSize + 0.5, cx1 = Math.min(width, (sx + 1) * sectorSize) - 0.5;
    const cy0 = sy * sectorSize + 0.5, cy1 = Math.min(height, (sy + 1) * sectorSize) - 0.5;
    const dx = Math.max(0, cx0 - gx, gx - cx1);
    const dy = Math.max(0, cy0 - gy, gy - cy1);
    bounds.push(dx * dx + dy * dy);
  }
  const order = candidates.map((_, i) => i).sort((i, j) =>
    bounds[i] - bounds[j] || candidates[i] - candidates[j]
  );
  let best = -1;
  let bestSq = Infinity;
  for (const i of order) {
    if (bounds[i] > bestSq) break;
    const s = candidates[i];
    const sx = s % sectorsX;
    const sy = (s - sx) / sectorsX;
    const x0 = sx * sectorSize, x1 = Math.min(width, x0 + sectorSize);
    const y0 = sy * sectorSize, y1 = Math.min(height, y0 + sectorSize);
    const first = table.sectorRegionStart[s];
    for (let y = y0; y < y1; y++) {
      const dy = y + 0.5 - gy;
      for (let x = x0; x < x1; x++) {
        const t = y * width + x;
        const local = regionLocal[t];
        if (local === closedLocal || regionComponent[first + local] !== component) continue;
        const dx = x + 0.5 - gx;
        const d = dx * dx + dy * dy;
        if (d < bestSq || (d === bestSq && t < best)) {
          bestSq = d;
          best = t;
        }
      }
    }
  }
  return best;
}
