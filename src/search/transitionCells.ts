/**
 * A hit-check table's transition cells in the forms a window raster tests fast: per transition its Chebyshev
 * reach and its cells as one bitmask per row (per table, cached, or derived once over shared memory for all
 * threads), and per window width the local offsets of its destinations, cells and rows (a few widths kept per
 * table, let go when a worker goes idle). The window raster (src/search/directionalRaster.ts) reads them.
 *
 * @module
 */
import type { HitCheckTable } from "./hitCheckTable.ts";

/** A table's transition and cell offsets in one window width (the window raster's row length). */
export interface StrideCache {
  /** The window width (local row length) the offsets are for. */
  stride: number;
  /** Per transition: its destination's local offset. */
  transitionLocal: Int32Array;
  /** Per table cell: its local offset (empty when the table has row bitmasks). */
  cellLocal: Int32Array;
  /** Per transition: the largest |dx| or |dy| of its cells (Chebyshev reach). */
  reach: Uint8Array;
  /** Per row entry of {@link RowMasks}: its row offset dy * stride. */
  rowLocal: Int32Array;
}

/**
 * A transition's cells as one bitmask per row it touches: bit j of row dy is the cell (j - maxReach, dy). With a
 * per-tile word of the blocked flags of the 2 * maxReach + 1 tiles centered on it (WindowRaster.rowBits), a
 * transition is tested with a few AND operations instead of a scan of ~24 cells. Only when 2 * maxReach + 1 <= 31.
 */
export interface RowMasks {
  /** Row entries per transition, CSR offsets (length transitions + 1). */
  rowStart: Uint32Array;
  /** Row dy of each entry. */
  rowDy: Int8Array;
  /** Cell bits of each entry. */
  rowMask: Int32Array;
}

const strideCaches = new WeakMap<HitCheckTable, Map<number, StrideCache>>();
/** Window widths whose offsets are kept per table (see windowOffsets). */
const STRIDES_KEPT = 4;
/** Every table's offset cache, so that an idle release can empty them (a WeakMap cannot be walked). */
const strideCacheMaps = new Set<Map<number, StrideCache>>();
const rowMaskCache = new WeakMap<HitCheckTable, RowMasks | null>();

/** Largest maxReach the row bitmasks support (2 * 15 + 1 bits fit a signed 32-bit word). */
const ROW_MASK_REACH = 15;

/** A table's row bitmasks (shared when derived, else cached per table), or null when its reach is too wide for them. */
export function rowMasksOf(hit: HitCheckTable): RowMasks | null {
  if (hit.derived !== undefined) return hit.derived.rows;
  if (rowMaskCache.has(hit)) return rowMaskCache.get(hit)!;
  const R = hit.maxReach;
  let out: RowMasks | null = null;
  if (R <= ROW_MASK_REACH) {
    const n = hit.dx.length;
    const cells = hit.cells;
    const rowStart = new Uint32Array(n + 1);
    const dys: number[] = [];
    const masks: number[] = [];
    const perRow = new Int32Array(2 * R + 1);
    for (let t = 0; t < n; t++) {
      perRow.fill(0);
      for (let c = hit.cellStart[t]; c < hit.cellStart[t + 1]; c++) {
        perRow[cells[2 * c + 1] + R] |= 1 << (cells[2 * c] + R);
      }
      rowStart[t] = dys.length;
      // The destination row first: it holds the most likely blocked cell.
      const first = hit.dy[t] + R;
      if (perRow[first] !== 0) {
        dys.push(first - R);
        masks.push(perRow[first]);
      }
      for (let r = 0; r < perRow.length; r++) {
        if (r === first || perRow[r] === 0) continue;
        dys.push(r - R);
        masks.push(perRow[r]);
      }
    }
    rowStart[n] = dys.length;
    out = { rowStart, rowDy: Int8Array.from(dys), rowMask: Int32Array.from(masks) };
  }
  rowMaskCache.set(hit, out);
  return out;
}

const reachCache = new WeakMap<HitCheckTable, Uint8Array>();

/** Per transition: the largest |dx| or |dy| of its cells (stride-independent, cached per table). */
function reachOf(hit: HitCheckTable): Uint8Array {
  if (hit.derived !== undefined) return hit.derived.reach;
  const cached = reachCache.get(hit);
  if (cached) return cached;
  const n = hit.dx.length;
  const cells = hit.cells;
  const reach = new Uint8Array(n);
  for (let t = 0; t < n; t++) {
    let m = 0;
    for (let c = hit.cellStart[t]; c < hit.cellStart[t + 1]; c++) {
      m = Math.max(m, Math.abs(cells[2 * c]), Math.abs(cells[2 * c + 1]));
    }
    reach[t] = m;
  }
  reachCache.set(hit, reach);
  return reach;
}

/** A copy of `a` over a SharedArrayBuffer. */
function sharedCopy<T extends Uint32Array | Int8Array | Int32Array | Uint8Array>(a: T): T {
  const C = a.constructor as new (b: SharedArrayBuffer) => T;
  const out = new C(new SharedArrayBuffer(a.byteLength));
  out.set(a as never);
  return out;
}

/**
 * Derives a table's row bitmasks and reaches once, over shared memory, and attaches them to the table
 * ({@link HitCheckTable.derived}): threads that adopt the table then use them instead of deriving their own
 * (~1 MB for a Directional-48 set). Returns their bytes.
 */
export function shareDerivedCells(hit: HitCheckTable): number {
  if (hit.derived !== undefined) return 0;
  const rows = rowMasksOf(hit);
  const reach = reachOf(hit);
  hit.derived = {
    rows: rows && {
      rowStart: sharedCopy(rows.rowStart),
      rowDy: sharedCopy(rows.rowDy),
      rowMask: sharedCopy(rows.rowMask),
    },
    reach: sharedCopy(reach),
  };
  rowMaskCache.delete(hit);
  reachCache.delete(hit);
  const r = hit.derived.rows;
  return hit.derived.reach.byteLength +
    (r ? r.rowStart.byteLength + r.rowDy.byteLength + r.rowMask.byteLength : 0);
}

/** A table's offsets in a window of row length `stride` (cached: a few widths per table). */
export function windowOffsets(hit: HitCheckTable, stride: number): StrideCache {
  let byStride = strideCaches.get(hit);
  if (!byStride) {
    byStride = new Map();
    strideCaches.set(hit, byStride);
  }
  const cached = byStride.get(stride);
  if (cached) return cached;
  const n = hit.dx.length;
  const transitionLocal = new Int32Array(n);
  for (let t = 0; t < n; t++) transitionLocal[t] = hit.dy[t] * stride + hit.dx[t];
  const rows = rowMasksOf(hit);
  // Cell offsets only when the row bitmasks cannot be used (they are ~12 times more entries).
  const cells = hit.cells;
  const cellLocal = new Int32Array(rows ? 0 : cells.length / 2);
  for (let c = 0; c < cellLocal.length; c++) cellLocal[c] = cells[2 * c + 1] * stride + cells[2 * c];
  const rowLocal = new Int32Array(rows ? rows.rowDy.length : 0);
  for (let k = 0; k < rowLocal.length; k++) rowLocal[k] = rows!.rowDy[k] * stride;
  const out = { stride, transitionLocal, cellLocal, reach: reachOf(hit), rowLocal };
  // A few window widths recur (one per query shape); keep the cache small: each entry is ~0.7 MB for a
  // Directional-48 table (its row offsets), per worker, so the oldest goes past STRIDES_KEPT (was 32: up to 23 MB).
  if (byStride.size >= STRIDES_KEPT) byStride.delete(byStride.keys().next().value!);
  byStride.set(stride, out);
  strideCacheMaps.add(byStride);
  return out;
}

/**
 * A worker gone idle: lets go of every table's window offsets when together they hold more than `keepBytes`
 * (up to STRIDES_KEPT widths per table, ~0.7 MB each for Directional-48). Returns the bytes let go.
 */
export function releaseWindowOffsets(keepBytes: number): number {
  let offsets = 0;
  for (const byStride of strideCacheMaps) {
    for (const c of byStride.values()) offsets += c.transitionLocal.byteLength + c.rowLocal.byteLength;
  }
  if (offsets <= keepBytes) return 0;
  for (const byStride of strideCacheMaps) byStride.clear();
  strideCacheMaps.clear();
  return offsets;
}
