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
 * @module
 */

import { sharedArray } from "./grid.ts";
import type { PassLayer } from "./grid.ts";
import { CAP_REACH, clipRect } from "./layer.ts";

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
  /** Region index per tile; -1 for closed tiles. */
  regionOf: Int32Array;
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

/** Copies the first `length` elements of a scratch array into a new shared array. */
function sharedCopy(source: Int32Array, length: number): Int32Array {
  const out = sharedArray(Int32Array, length);
  out.set(source.subarray(0, length));
  return out;
}

/** Per-region data produced by the sector pass. */
interface SectorRegions {
  regionCount: number;
  openTileCount: number;
  sectorRegionStart: Int32Array;
  regionSector: Int32Array;
  regionTileCount: Int32Array;
  regionTile: Int32Array;
}

/**
 * Labels the regions of every sector in order. Dirty sectors (all if `old` is null) are flood filled from
 * scratch in `regionOf` (which must hold -1 on their tiles); clean sectors keep `old`'s regions, renumbered
 * by the shift of their first region index.
 */
function labelSectors(
  layer: PassLayer,
  threshold: number,
  sectorSize: number,
  regionOf: Int32Array,
  dirty: Uint8Array | null,
  old: RegionTable | null,
  capacity: number,
): SectorRegions {
  const { width, height, tileCost, clearance } = layer;
  const sectorsX = Math.ceil(width / sectorSize);
  const sectorsY = Math.ceil(height / sectorSize);
  const sectorRegionStart = sharedArray(Int32Array, sectorsX * sectorsY + 1);
  const regionSector = new Int32Array(capacity);
  const regionTileCount = new Int32Array(capacity);
  const regionTile = new Int32Array(capacity);
  const stack = new Int32Array(sectorSize * sectorSize);
  let regionCount = 0;
  let openTileCount = 0;
  for (let sy = 0; sy < sectorsY; sy++) {
    const y0 = sy * sectorSize;
    const y1 = Math.min(height, y0 + sectorSize);
    for (let sx = 0; sx < sectorsX; sx++) {
      const s = sy * sectorsX + sx;
      const x0 = sx * sectorSize;
      const x1 = Math.min(width, x0 + sectorSize);
      sectorRegionStart[s] = regionCount;
      if (old !== null && (dirty === null || dirty[s] === 0)) {
        const oldStart = old.sectorRegionStart[s];
        const oldEnd = old.sectorRegionStart[s + 1];
        const shift = regionCount - oldStart;
        if (shift !== 0) {
          for (let y = y0; y < y1; y++) {
            for (let t = y * width + x0, end = y * width + x1; t < end; t++) {
              if (regionOf[t] >= 0) regionOf[t] += shift;
            }
          }
        }
        for (let r = oldStart; r < oldEnd; r++, regionCount++) {
          regionSector[regionCount] = s;
          regionTileCount[regionCount] = old.regionTileCount[r];
          regionTile[regionCount] = old.regionTile[r];
          openTileCount += old.regionTileCount[r];
        }
        continue;
      }
      for (let y = y0; y < y1; y++) {
        for (let t = y * width + x0, end = y * width + x1; t < end; t++) {
          if (regionOf[t] !== -1 || !(tileCost[t] > 0 && clearance[t] >= threshold)) continue;
          const region = regionCount++;
          regionOf[t] = region;
          let size = 0;
          let top = 0;
          stack[top++] = t;
          while (top > 0) {
            const u = stack[--top];
            size++;
            const uy = (u / width) | 0;
            const ux = u - uy * width;
            // The four neighbours inside the sector; each open unlabelled one is labelled when pushed.
            if (ux > x0) {
              const v = u - 1;
              if (regionOf[v] === -1 && tileCost[v] > 0 && clearance[v] >= threshold) {
                regionOf[v] = region;
                stack[top++] = v;
              }
            }
            if (ux + 1 < x1) {
              const v = u + 1;
              if (regionOf[v] === -1 && tileCost[v] > 0 && clearance[v] >= threshold) {
                regionOf[v] = region;
                stack[top++] = v;
              }
            }
            if (uy > y0) {
              const v = u - width;
              if (regionOf[v] === -1 && tileCost[v] > 0 && clearance[v] >= threshold) {
                regionOf[v] = region;
                stack[top++] = v;
              }
            }
            if (uy + 1 < y1) {
              const v = u + width;
              if (regionOf[v] === -1 && tileCost[v] > 0 && clearance[v] >= threshold) {
                regionOf[v] = region;
                stack[top++] = v;
              }
            }
          }
          regionSector[region] = s;
          regionTileCount[region] = size;
          regionTile[region] = t;
          openTileCount += size;
        }
      }
    }
  }
  sectorRegionStart[sectorsX * sectorsY] = regionCount;
  return {
    regionCount,
    openTileCount,
    sectorRegionStart,
    regionSector: sharedCopy(regionSector, regionCount),
    regionTileCount: sharedCopy(regionTileCount, regionCount),
    regionTile: sharedCopy(regionTile, regionCount),
  };
}

/** Finds the entrances, builds the abstract graph and its components, and assembles the table. */
function linkRegions(
  width: number,
  height: number,
  threshold: number,
  sectorSize: number,
  regionOf: Int32Array,
  sectors: SectorRegions,
): RegionTable {
  const sectorsX = Math.ceil(width / sectorSize);
  const sectorsY = Math.ceil(height / sectorSize);
  const regionCount = sectors.regionCount;

  // 1. Entrances in border order (sector by sector: east border, then south border).
  const maxEntrances = (sectorsX - 1) * height + (sectorsY - 1) * width + 1;
  const rawA = new Int32Array(maxEntrances);
  const rawB = new Int32Array(maxEntrances);
  const rawTileA = new Int32Array(maxEntrances);
  const rawTileB = new Int32Array(maxEntrances);
  const rawLength = new Int32Array(maxEntrances);
  let rawCount = 0;
  // Scans `count` pairs (a, a + across), stepping a by `along`; records each maximal run of open pairs.
  const scanBorder = (first: number, count: number, along: number, across: number) => {
    let runStart = -1;
    for (let i = 0; i <= count; i++) {
      const a = first + i * along;
      const open = i < count && regionOf[a] >= 0 && regionOf[a + across] >= 0;
      if (open && runStart < 0) runStart = i;
      if (!open && runStart >= 0) {
        const mid = first + (runStart + ((i - 1 - runStart) >> 1)) * along;
        rawA[rawCount] = regionOf[mid];
        rawB[rawCount] = regionOf[mid + across];
        rawTileA[rawCount] = mid;
        rawTileB[rawCount] = mid + across;
        rawLength[rawCount] = i - runStart;
        rawCount++;
        runStart = -1;
      }
    }
  };
  for (let sy = 0; sy < sectorsY; sy++) {
    const y0 = sy * sectorSize;
    const y1 = Math.min(height, y0 + sectorSize);
    for (let sx = 0; sx < sectorsX; sx++) {
      const x0 = sx * sectorSize;
      const x1 = Math.min(width, x0 + sectorSize);
      if (x1 < width) scanBorder(y0 * width + x1 - 1, y1 - y0, width, 1);
      if (y1 < height) scanBorder((y1 - 1) * width + x0, x1 - x0, 1, width);
    }
  }

  // 2. Sort entrances by (regionA, regionB): counting sort on A, then insertion sort on B inside each bucket
  // (buckets are tiny: a region has few entrances). Stable, so border order is kept for equal pairs.
  const bucketStart = new Int32Array(regionCount + 1);
  for (let i = 0; i < rawCount; i++) bucketStart[rawA[i] + 1]++;
  for (let r = 0; r < regionCount; r++) bucketStart[r + 1] += bucketStart[r];
  const fill = bucketStart.slice(0, regionCount);
  const order = new Int32Array(rawCount);
  for (let i = 0; i < rawCount; i++) order[fill[rawA[i]]++] = i;
  for (let r = 0; r < regionCount; r++) {
    for (let i = bucketStart[r] + 1; i < bucketStart[r + 1]; i++) {
      const item = order[i];
      let j = i - 1;
      while (j >= bucketStart[r] && rawB[order[j]] > rawB[item]) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = item;
    }
  }
  const entranceRegionA = sharedArray(Int32Array, rawCount);
  const entranceRegionB = sharedArray(Int32Array, rawCount);
  const entranceTileA = sharedArray(Int32Array, rawCount);
  const entranceTileB = sharedArray(Int32Array, rawCount);
  const entranceLength = sharedArray(Int32Array, rawCount);
  for (let k = 0; k < rawCount; k++) {
    const i = order[k];
    entranceRegionA[k] = rawA[i];
    entranceRegionB[k] = rawB[i];
    entranceTileA[k] = rawTileA[i];
    entranceTileB[k] = rawTileB[i];
    entranceLength[k] = rawLength[i];
  }

  // 3. Undirected edges = distinct (A, B) pairs, in sorted order; then the CSR with both directions.
  const pairStart = new Int32Array(rawCount + 1);
  let pairCount = 0;
  for (let k = 0; k < rawCount; k++) {
    if (
      k === 0 || entranceRegionA[k] !== entranceRegionA[k - 1] ||
      entranceRegionB[k] !== entranceRegionB[k - 1]
    ) {
      pairStart[pairCount++] = k;
    }
  }
  pairStart[pairCount] = rawCount;
  const edgeStart = sharedArray(Int32Array, regionCount + 1);
  for (let p = 0; p < pairCount; p++) {
    const k = pairStart[p];
    edgeStart[entranceRegionA[k] + 1]++;
    edgeStart[entranceRegionB[k] + 1]++;
  }
  for (let r = 0; r < regionCount; r++) edgeStart[r + 1] += edgeStart[r];
  const edgeCount = edgeStart[regionCount];
  const edgeTarget = sharedArray(Int32Array, edgeCount);
  const edgeEntranceStart = sharedArray(Int32Array, edgeCount);
  const edgeEntranceCount = sharedArray(Int32Array, edgeCount);
  const cursor = edgeStart.slice(0, regionCount);
  // Pairs are sorted by A then B, so each region's list comes out sorted: first its lower neighbours (where
  // it is B, visited in increasing A), then its higher ones (where it is A, in increasing B).
  for (let p = 0; p < pairCount; p++) {
    const k = pairStart[p];
    const count = pairStart[p + 1] - k;
    const a = entranceRegionA[k];
    const b = entranceRegionB[k];
    let e = cursor[a]++;
    edgeTarget[e] = b;
    edgeEntranceStart[e] = k;
    edgeEntranceCount[e] = count;
    e = cursor[b]++;
    edgeTarget[e] = a;
    edgeEntranceStart[e] = k;
    edgeEntranceCount[e] = count;
  }

  // 4. Components: BFS over the abstract graph.
  const regionComponent = sharedArray(Int32Array, regionCount);
  regionComponent.fill(-1);
  const queue = new Int32Array(regionCount);
  let componentCount = 0;
  for (let r = 0; r < regionCount; r++) {
    if (regionComponent[r] !== -1) continue;
    const component = componentCount++;
    let head = 0;
    let tail = 0;
    queue[tail++] = r;
    regionComponent[r] = component;
    while (head < tail) {
      const u = queue[head++];
      for (let e = edgeStart[u], end = edgeStart[u + 1]; e < end; e++) {
        const v = edgeTarget[e];
        if (regionComponent[v] === -1) {
          regionComponent[v] = component;
          queue[tail++] = v;
        }
      }
    }
  }

  return {
    width,
    height,
    clearanceClass: threshold,
    sectorSize,
    sectorsX,
    sectorsY,
    openTileCount: sectors.openTileCount,
    regionCount,
    componentCount,
    entranceCount: rawCount,
    regionOf,
    sectorRegionStart: sectors.sectorRegionStart,
    regionSector: sectors.regionSector,
    regionTileCount: sectors.regionTileCount,
    regionTile: sectors.regionTile,
    regionComponent,
    edgeStart,
    edgeTarget,
    edgeEntranceStart,
    edgeEntranceCount,
    entranceRegionA,
    entranceRegionB,
    entranceTileA,
    entranceTileB,
    entranceLength,
  };
}

/**
 * Builds the region table of `layer` for a clearance class (a value from clearanceClass; 0.5 = every open
 * tile) with sectors of `sectorSize` x `sectorSize` tiles.
 */
export function buildRegionTable(
  layer: PassLayer,
  clearanceClass: number,
  sectorSize: number = DEFAULT_SECTOR_SIZE,
): RegionTable {
  if (!Number.isInteger(sectorSize) || sectorSize < 1) {
    throw new RangeError(`buildRegionTable: sectorSize must be a positive integer, got ${sectorSize}`);
  }
  const size = layer.width * layer.height;
  const regionOf = sharedArray(Int32Array, size);
  regionOf.fill(-1);
  const sectors = labelSectors(layer, clearanceClass, sectorSize, regionOf, null, null, size);
  return linkRegions(layer.width, layer.height, clearanceClass, sectorSize, regionOf, sectors);
}

/**
 * Returns the region table of `newLayer` given the table `old` of the layer before an edit of the half-open
 * rectangle [x0, x1) x [y0, y1) (the edited tiles, or the changed window updatePassLayer reports). Tiles up
 * to CAP_REACH around the rectangle are compared (their clearance may have changed); only sectors whose
 * open tiles changed are flood filled again, the others keep their regions, and the entrances, graph and
 * components are rebuilt (cheap). The result equals buildRegionTable(newLayer, ...) exactly, provided
 * nothing changed outside that reach. `old` is not modified.
 */
export function updateRegionTable(
  old: RegionTable,
  newLayer: PassLayer,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): RegionTable {
  const { width, height, sectorSize, sectorsX, sectorsY } = old;
  if (newLayer.width !== width || newLayer.height !== height) {
    throw new RangeError(
      `updateRegionTable: layer is ${newLayer.width}x${newLayer.height}, table is ${width}x${height}`,
    );
  }
  const threshold = old.clearanceClass;
  const { tileCost, clearance } = newLayer;
  const reach = clipRect(
    { x0: x0 - CAP_REACH, y0: y0 - CAP_REACH, x1: x1 + CAP_REACH, y1: y1 + CAP_REACH },
    width,
    height,
  );
  // Bounding box of tiles whose open status differs between the old table and the new layer.
  let cx0 = width, cy0 = height, cx1 = 0, cy1 = 0;
  for (let y = reach.y0; y < reach.y1; y++) {
    for (let x = reach.x0; x < reach.x1; x++) {
      const t = y * width + x;
      const open = tileCost[t] > 0 && clearance[t] >= threshold;
      if (open !== old.regionOf[t] >= 0) {
        if (x < cx0) cx0 = x;
        if (x >= cx1) cx1 = x + 1;
        if (y < cy0) cy0 = y;
        if (y >= cy1) cy1 = y + 1;
      }
    }
  }
  if (cx0 >= cx1) return { ...old };

  const dirty = new Uint8Array(sectorsX * sectorsY);
  const regionOf = sharedArray(Int32Array, width * height);
  regionOf.set(old.regionOf);
  let dirtyTiles = 0;
  const sx0 = Math.floor(cx0 / sectorSize), sx1 = Math.floor((cx1 - 1) / sectorSize);
  const sy0 = Math.floor(cy0 / sectorSize), sy1 = Math.floor((cy1 - 1) / sectorSize);
  for (let sy = sy0; sy <= sy1; sy++) {
    for (let sx = sx0; sx <= sx1; sx++) {
      dirty[sy * sectorsX + sx] = 1;
      const tx0 = sx * sectorSize, tx1 = Math.min(width, tx0 + sectorSize);
      const ty0 = sy * sectorSize, ty1 = Math.min(height, ty0 + sectorSize);
      for (let y = ty0; y < ty1; y++) regionOf.fill(-1, y * width + tx0, y * width + tx1);
      dirtyTiles += (tx1 - tx0) * (ty1 - ty0);
    }
  }
  const sectors = labelSectors(
    newLayer,
    threshold,
    sectorSize,
    regionOf,
    dirty,
    old,
    old.regionCount + dirtyTiles,
  );
  return linkRegions(width, height, threshold, sectorSize, regionOf, sectors);
}

/** True if both tiles are open and in the same connected component. */
export function sameComponent(table: RegionTable, tileA: number, tileB: number): boolean {
  const a = table.regionOf[tileA];
  const b = table.regionOf[tileB];
  return a >= 0 && b >= 0 && table.regionComponent[a] === table.regionComponent[b];
}

/** The component of a tile, or -1 if it is closed (or out of range). */
export function componentOfTile(table: RegionTable, tile: number): number {
  const region = table.regionOf[tile];
  return region === undefined || region < 0 ? -1 : table.regionComponent[region];
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
  const { width, height, sectorSize, sectorsX, regionOf, regionComponent, regionSector } = table;
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
    for (let y = y0; y < y1; y++) {
      const dy = y + 0.5 - gy;
      for (let x = x0; x < x1; x++) {
        const t = y * width + x;
        const region = regionOf[t];
        if (region < 0 || regionComponent[region] !== component) continue;
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
