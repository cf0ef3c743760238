/**
 * Building a region table ({@link RegionTable}, see regions.ts) from a pass layer: the sector pass labels each
 * sector's regions by 4-connected flood fill, the link pass finds the entrances along sector borders, the
 * region graph and its components. The incremental update (regionUpdate.ts) runs the same two passes,
 * flood filling only the sectors an edit touched.
 *
 * @module
 */

import { clearanceCodeAtLeast, sharedArray } from "./grid.ts";
import type { PassLayer } from "./grid.ts";
import {
  closedLocalId,
  DEFAULT_SECTOR_SIZE,
  type LocalRegionIds,
  localRegionIds,
  type RegionTable,
} from "./regions.ts";

/** Copies the first `length` elements of a scratch array into a new shared array. */
function sharedCopy(source: Int32Array, length: number): Int32Array {
  const out = sharedArray(Int32Array, length);
  out.set(source.subarray(0, length));
  return out;
}

/** A copy of `a` with room for `length` elements. */
function grow(a: Int32Array, length: number): Int32Array {
  const out = new Int32Array(length);
  out.set(a);
  return out;
}

/** Per-region data produced by the sector pass. */
export interface SectorRegions {
  /** Number of regions. */
  regionCount: number;
  /** Number of open tiles. */
  openTileCount: number;
  /** As on {@link RegionTable}. */
  sectorRegionStart: Int32Array;
  /** As on {@link RegionTable}. */
  regionSector: Int32Array;
  /** As on {@link RegionTable}. */
  regionTileCount: Int32Array;
  /** As on {@link RegionTable}. */
  regionTile: Int32Array;
}

/**
 * Labels the regions of every sector in order. Dirty sectors (all if `old` is null) are flood filled from
 * scratch in `regionLocal` (their closed tiles get the closed id, whatever they held); clean sectors keep
 * `old`'s regions, whose local ids (already in `regionLocal`) do not change with the sector's first region
 * index. `capacity` bounds the region count.
 */
export function labelSectors(
  layer: PassLayer,
  threshold: number,
  sectorSize: number,
  regionLocal: LocalRegionIds,
  dirty: Uint8Array | null,
  old: RegionTable | null,
  capacity: number,
): SectorRegions {
  const { width, height, tileCost, clearanceCode } = layer;
  const thresholdCode = clearanceCodeAtLeast(threshold);
  const closed = closedLocalId(regionLocal);
  const sectorsX = Math.ceil(width / sectorSize);
  const sectorsY = Math.ceil(height / sectorSize);
  const sectorRegionStart = sharedArray(Int32Array, sectorsX * sectorsY + 1);
  // Per-region arrays grow as regions are found (a map-sized capacity cost 3 x 4 bytes a tile up front).
  const initial = Math.min(capacity, 1 << 16);
  let regionSector: Int32Array = new Int32Array(initial);
  let regionTileCount: Int32Array = new Int32Array(initial);
  let regionTile: Int32Array = new Int32Array(initial);
  const padded = (sectorSize + 2) * (sectorSize + 2);
  const open = new Uint8Array(padded);
  const tileAt = new Int32Array(padded);
  const stack = new Int32Array(padded);
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
        for (let r = oldStart; r < oldEnd; r++, regionCount++) {
          if (regionCount === regionSector.length) {
            const grown = Math.min(capacity, Math.max(1024, regionCount * 2));
            regionSector = grow(regionSector, grown);
            regionTileCount = grow(regionTileCount, grown);
            regionTile = grow(regionTile, grown);
          }
          regionSector[regionCount] = s;
          regionTileCount[regionCount] = old.regionTileCount[r];
          regionTile[regionCount] = old.regionTile[r];
          openTileCount += old.regionTileCount[r];
        }
        continue;
      }
      // The sector's open tiles as a local mask with a closed border (pw = sector width + 2), so the fill
      // reads each tile's cost and clearance once and steps without bounds checks or divisions; closed tiles
      // get the closed id here (the caller need not clear them first).
      const sw = x1 - x0;
      const pw = sw + 2;
      open.fill(0, 0, pw * (y1 - y0 + 2));
      for (let y = y0; y < y1; y++) {
        const row = (y - y0 + 1) * pw + 1 - x0;
        for (let t = y * width + x0, end = y * width + x1, x = x0; t < end; t++, x++) {
          if (tileCost[t] > 0 && clearanceCode[t] >= thresholdCode) {
            open[row + x] = 1;
            tileAt[row + x] = t;
          } else {
            regionLocal[t] = closed;
          }
        }
      }
      // Regions numbered in scan order of their first tile, as before (each seed is the first open tile left).
      for (let y = y0; y < y1; y++) {
        const row = (y - y0 + 1) * pw + 1 - x0;
        for (let x = x0; x < x1; x++) {
          const seed = row + x;
          if (open[seed] === 0) continue;
          if (regionCount === regionSector.length) {
            const grown = Math.min(capacity, Math.max(1024, regionCount * 2));
            regionSector = grow(regionSector, grown);
            regionTileCount = grow(regionTileCount, grown);
            regionTile = grow(regionTile, grown);
          }
          const region = regionCount++;
          const local = region - sectorRegionStart[s];
          open[seed] = 0;
          let size = 0;
          let top = 0;
          stack[top++] = seed;
          while (top > 0) {
            const u = stack[--top];
            size++;
            regionLocal[tileAt[u]] = local;
            // Each open neighbour is cleared when pushed, so it is pushed once.
            if (open[u - 1] === 1) {
              open[u - 1] = 0;
              stack[top++] = u - 1;
            }
            if (open[u + 1] === 1) {
              open[u + 1] = 0;
              stack[top++] = u + 1;
            }
            if (open[u - pw] === 1) {
              open[u - pw] = 0;
              stack[top++] = u - pw;
            }
            if (open[u + pw] === 1) {
              open[u + pw] = 0;
              stack[top++] = u + pw;
            }
          }
          regionSector[region] = s;
          regionTileCount[region] = size;
          regionTile[region] = tileAt[seed];
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
export function linkRegions(
  width: number,
  height: number,
  threshold: number,
  sectorSize: number,
  regionLocal: LocalRegionIds,
  sectors: SectorRegions,
): RegionTable {
  const closed = closedLocalId(regionLocal);
  const sectorRegionStart = sectors.sectorRegionStart;
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
  // Scans `count` pairs (a, a + across), stepping a by `along`, a in sector sa and a + across in sector sb;
  // records each maximal run of open pairs.
  const scanBorder = (
    first: number,
    count: number,
    along: number,
    across: number,
    sa: number,
    sb: number,
  ) => {
    const baseA = sectorRegionStart[sa], baseB = sectorRegionStart[sb];
    let runStart = -1;
    for (let i = 0; i <= count; i++) {
      const a = first + i * along;
      const open = i < count && regionLocal[a] !== closed && regionLocal[a + across] !== closed;
      if (open && runStart < 0) runStart = i;
      if (!open && runStart >= 0) {
        const mid = first + (runStart + ((i - 1 - runStart) >> 1)) * along;
        rawA[rawCount] = baseA + regionLocal[mid];
        rawB[rawCount] = baseB + regionLocal[mid + across];
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
      const s = sy * sectorsX + sx;
      if (x1 < width) scanBorder(y0 * width + x1 - 1, y1 - y0, width, 1, s, s + 1);
      if (y1 < height) scanBorder((y1 - 1) * width + x0, x1 - x0, 1, width, s, s + sectorsX);
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
    regionLocal,
    closedLocal: closed,
    sectorRegionStart,
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
  // Every tile is a sector's, so the sector pass writes all of regionLocal (no closed fill first).
  const regionLocal = localRegionIds(sectorSize, size);
  const sectors = labelSectors(layer, clearanceClass, sectorSize, regionLocal, null, null, size);
  return linkRegions(layer.width, layer.height, clearanceClass, sectorSize, regionLocal, sectors);
}
