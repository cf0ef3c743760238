/**
 * The straight jump tables of {@link JumpPointSpace} (jumpPointSpace.ts), JPS+ style: per (layer, clearance
 * class) a padded open mask and, per straight direction, how far a scan from each cell runs. Built once (in
 * slices when a budget asks, resumable), cached in a bounded per-worker LRU, shared with the other workers over
 * SharedArrayBuffer.
 *
 * Distances are one signed byte a cell: exact when they fit in -127 .. 127, else {@link LONG_RUN}, "the scan
 * crosses the next {@link LONG_STEP} cells without stopping: read on from there" (a scan's value one cell on is
 * its value here less one step, while it neither stops nor meets a jump point). Long runs are rare on real maps
 * (a stop every few dozen tiles), so the hot loop pays one compare, and the tables hold 5 bytes a cell instead
 * of 9 (Int16) or 17 (Int32).
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import { ByteLru } from "./byteLru.ts";

const openMasks = new WeakMap<Float32Array, Map<number, Uint8Array>>();

/** The stored value of a distance beyond one byte: read on {@link LONG_STEP} cells further along the scan. */
export const LONG_RUN = -128;

/** Cells a {@link LONG_RUN} entry skips: the largest exact magnitude. */
export const LONG_STEP = 127;

/**
 * The true distance of a scan whose table entry at `p` is {@link LONG_RUN}, stepping `step` (padded cells) per
 * cell: the chain of long entries then the first exact one, plus {@link LONG_STEP} per link in its sign.
 */
export function longRun(dist: JumpDistances, p: number, step: number): number {
  let skipped = 0;
  let q = p;
  let d = dist[q];
  while (d === LONG_RUN) {
    skipped += LONG_STEP;
    q += LONG_STEP * step;
    d = dist[q];
  }
  return d > 0 ? d + skipped : d - skipped;
}

/** The true distance stored at `p` of a table scanned by `step` (see {@link longRun}). */
export function jumpDistance(dist: JumpDistances, p: number, step: number): number {
  const d = dist[p];
  return d === LONG_RUN ? longRun(dist, p, step) : d;
}

/**
 * Bytes of open masks and jump tables a worker keeps, least recently used out first. They are built per map
 * version and clearance class, and clients choose unit radii freely (hundreds of classes up to radius 16), so
 * without a bound a client could grow a worker until it runs out of memory.
 */
export const JUMP_CACHE_BYTES = 256 * 1024 * 1024;

/** The (layer, r) entries by open mask; an evicted entry leaves both caches. */
const jumpCache = new ByteLru<Uint8Array, { byClearance: Map<number, Uint8Array>; r: number }>(
  JUMP_CACHE_BYTES,
  (mask, entry) => {
    entry.byClearance.delete(entry.r);
    jumpTables.delete(mask);
  },
);

/**
 * Forgets a layer's open masks and jump tables at once (the worker calls this when the service drops the
 * layer's map version), instead of leaving them to age out of the bounded cache.
 */
export function forgetJumpTables(layer: PassLayer): void {
  pendingBuilds.delete(layer.tileCost);
  const byClearance = openMasks.get(layer.tileCost);
  if (!byClearance) return;
  for (const mask of byClearance.values()) {
    jumpCache.delete(mask);
    jumpTables.delete(mask);
  }
  openMasks.delete(layer.tileCost);
}

/** Sets the jump cache's byte bound (tests and tuning); returns the previous one. */
export function setJumpCacheLimit(bytes: number): number {
  const previous = jumpCache.limit;
  jumpCache.limit = bytes;
  return previous;
}

/** Bytes the jump cache holds now (tests). */
export function jumpCacheSize(): number {
  return jumpCache.bytes;
}

/**
 * The open test as a byte mask over the layer padded by one blocked tile on every side: entry
 * (y + 1) * (width + 2) + (x + 1) is 1 when tile (x, y) is open for clearance r (r <= 0: passable).
 * Cached per layer and r.
 */
export function openMask(layer: PassLayer, minClearance: number): Uint8Array {
  const r = minClearance > 0 ? minClearance : 0;
  let byClearance = openMasks.get(layer.tileCost);
  if (!byClearance) {
    byClearance = new Map();
    openMasks.set(layer.tileCost, byClearance);
  }
  let mask = byClearance.get(r);
  if (!mask) {
    const w = layer.width;
    const h = layer.height;
    const pw = w + 2;
    const tileCost = layer.tileCost;
    const clearance = layer.clearance;
    // Over shared memory: the jump tables that hold the mask cross to the other workers without a copy.
    mask = new Uint8Array(new SharedArrayBuffer(pw * (h + 2)));
    for (let y = 0; y < h; y++) {
      for (let x = 0, t = y * w, p = (y + 1) * pw + 1; x < w; x++, t++, p++) {
        if (tileCost[t] > 0 && (r === 0 || clearance[t] >= r)) mask[p] = 1;
      }
    }
    byClearance.set(r, mask);
    jumpCache.set(mask, { byClearance, r }, mask.byteLength);
  } else {
    jumpCache.get(mask);
  }
  return mask;
}

/**
 * A jump-distance table over the padded mask: for an open cell, k > 0 means the straight scan meets a jump point
 * k steps away; k <= 0 means it runs -k open steps and then hits a blocked cell; stored one byte a cell (see the
 * module comment: {@link LONG_RUN} entries continue further along the scan).
 */
export type JumpDistances = Int8Array;

/** Straight jump distances of one (layer, clearance class), over shared memory (see {@link straightJumps}). */
export interface StraightJumps {
  /** The padded open mask the distances were built from. */
  open: Uint8Array;
  /** Scanning east (+1). */
  east: JumpDistances;
  /** Scanning west (-1). */
  west: JumpDistances;
  /** Scanning south (+padded row). */
  south: JumpDistances;
  /** Scanning north (-padded row). */
  north: JumpDistances;
}

const jumpTables = new WeakMap<Uint8Array, StraightJumps>();

/** Told of every table set this thread builds itself (the worker publishes it to the others). */
let onBuilt: ((layer: PassLayer, minClearance: number, tables: StraightJumps) => void) | null = null;

/** Registers the listener told of each jump table set this thread builds (to share it); null removes it. */
export function onJumpTablesBuilt(
  cb: ((layer: PassLayer, minClearance: number, tables: StraightJumps) => void) | null,
): void {
  onBuilt = cb;
}

/** Bytes of a jump table set (mask and four distance tables). */
export function jumpTableBytes(t: StraightJumps): number {
  return t.open.byteLength + 4 * t.east.byteLength;
}

/**
 * Adopts another thread's jump tables of (layer, clearance class), built by {@link straightJumps} there (over
 * shared memory, so nothing is copied): later searches use them instead of building their own. Tables this
 * thread already has are kept (the same distances either way), unless `replace`: a copy this thread built while
 * another's was published is dropped for the published one, so the tables are held once.
 */
export function adoptJumpTables(
  layer: PassLayer,
  minClearance: number,
  tables: StraightJumps,
  replace = false,
): void {
  const r = minClearance > 0 ? minClearance : 0;
  const n = (layer.width + 2) * (layer.height + 2);
  if (tables.open.length !== n || tables.east.length !== n) {
    throw new RangeError(`adoptJumpTables: tables of ${tables.open.length} cells for a layer of ${n}`);
  }
  let byClearance = openMasks.get(layer.tileCost);
  if (!byClearance) {
    byClearance = new Map();
    openMasks.set(layer.tileCost, byClearance);
  }
  const have = byClearance.get(r);
  if (have === tables.open || (have && jumpTables.has(have) && !replace)) return;
  if (have) jumpTables.delete(have);
  pendingBuilds.get(layer.tileCost)?.delete(r); // a build of our own stopped half way is not needed now
  if (have) jumpCache.delete(have);
  byClearance.set(r, tables.open);
  jumpTables.set(tables.open, tables);
  // Not in the per-thread LRU: the sharer holds them until the layer goes (forgetJumpTables), so evicting them
  // here frees nothing and only has the next query build them again (8192^2: one set is 336 MB, over the bound).
}

/**
 * Takes (layer, r)'s tables, built by this thread, out of the per-thread LRU: they were shared and the sharer
 * holds them (and counts them in its budget) until the layer goes, see {@link adoptJumpTables}.
 */
export function shareJumpTables(layer: PassLayer, minClearance: number): void {
  const mask = openMasks.get(layer.tileCost)?.get(minClearance > 0 ? minClearance : 0);
  if (mask !== undefined && jumpTables.has(mask)) jumpCache.delete(mask);
}

/** The byte stored for true distance d: itself when it fits, else {@link LONG_RUN}. */
function encode(d: number): number {
  return d > LONG_STEP || d < -LONG_STEP ? LONG_RUN : d;
}

/**
 * Fills dist for the `count` cells of one line scanned by `step` (side = perpendicular offset), from the
 * line's last cell `q` back against the scan. Every cell gets a value, blocked ones too (a start may be). The
 * true distance one cell on is carried in `d` (the table may hold {@link LONG_RUN} there).
 */
function sweep(
  open: Uint8Array,
  dist: JumpDistances,
  step: number,
  side: number,
  q: number,
  count: number,
): void {
  let d = 0;
  for (let i = 0; i < count; i++, q -= step) {
    const next = q + step;
    if (open[next] !== 1) d = 0;
    else if (
      (open[next + side] === 1 && open[q + side] === 0) || (open[next - side] === 1 && open[q - side] === 0)
    ) d = 1;
    else d = d > 0 ? d + 1 : d - 1;
    dist[q] = encode(d);
  }
}

/**
 * {@link sweep} for the vertical tables, one row `y` (against the scan `step` = +-pw), every inner column at
 * once, reading memory in order (a column sweep strides a whole row per cell: 4x slower on a 4096-wide map).
 * Each cell reads only the cell one row back in the scan, whose true distance is `carry[column]` (updated
 * here), so this fills exactly what per-column sweeps fill.
 */
function sweepRow(
  open: Uint8Array,
  dist: JumpDistances,
  step: number,
  y: number,
  pw: number,
  carry: Int32Array,
): void {
  for (let x = 1, q = y * pw + 1; x < pw - 1; x++, q++) {
    const next = q + step;
    let d: number;
    if (open[next] !== 1) d = 0;
    else if ((open[next + 1] === 1 && open[q + 1] === 0) || (open[next - 1] === 1 && open[q - 1] === 0)) {
      d = 1;
    } else {
      const c = carry[x];
      d = c > 0 ? c + 1 : c - 1;
    }
    carry[x] = d;
    dist[q] = encode(d);
  }
}

/** A jump table build under way: the tables allocated and how far the passes got (see straightJumpsUntil). */
interface JumpBuild {
  tables: StraightJumps;
  /** -1: open mask rows, 0: east/west rows, 1: south rows (bottom up), 2: north rows (top down). */
  phase: number;
  /** The next row of the phase (map rows in phase -1, padded rows after). */
  row: number;
  /** True distances of the row swept last, per padded column (vertical phases). */
  carry: Int32Array;
}

/** Builds stopped half way, by layer (its tileCost array) and clearance class (they go with the layer). */
const pendingBuilds = new WeakMap<Float32Array, Map<number, JumpBuild>>();

/** Rows swept between polls of a build's stop condition (a few milliseconds on an 8192-wide map). */
const ROWS_PER_POLL = 128;

/** True when this thread holds the complete jump tables of (layer, r) (built here or adopted). */
export function hasJumpTables(layer: PassLayer, minClearance: number): boolean {
  const mask = openMasks.get(layer.tileCost)?.get(minClearance > 0 ? minClearance : 0);
  return mask !== undefined && jumpTables.has(mask);
}

/** The straight jump distances for (layer, r), built on first use and cached with the open mask. */
export function straightJumps(layer: PassLayer, minClearance: number): StraightJumps {
  return straightJumpsUntil(layer, minClearance, null)!;
}

/**
 * {@link straightJumps} under a `stop` condition, polled every {@link ROWS_PER_POLL} rows (of the open mask,
 * then of each sweep): returns null when it says so before the tables are complete, keeping the rows done so
 * far, so the next call for (layer, r) goes on from there (a first query on a big map answers within its
 * budget instead of overrunning it by the whole build, seconds at 8192^2, and no work is lost). The finished
 * tables equal an uninterrupted build's.
 */
export function straightJumpsUntil(
  layer: PassLayer,
  minClearance: number,
  stop: (() => boolean) | null,
): StraightJumps | null {
  const r = minClearance > 0 ? minClearance : 0;
  const cached = openMasks.get(layer.tileCost)?.get(r);
  const done = cached && jumpTables.get(cached);
  if (done) {
    jumpCache.get(cached);
    return done;
  }
  const w = layer.width;
  const pw = w + 2;
  const ph = layer.height + 2;
  const n = pw * ph;
  let pending = pendingBuilds.get(layer.tileCost);
  if (!pending) {
    pending = new Map();
    pendingBuilds.set(layer.tileCost, pending);
  }
  let build = pending.get(r);
  if (!build) {
    // Over shared memory, so other workers can adopt them (adoptJumpTables) instead of building their own.
    const make = (): JumpDistances => new Int8Array(new SharedArrayBuffer(n));
    // A mask built already (openMask) is kept; else its rows are the build's first pass.
    const open = cached ?? new Uint8Array(new SharedArrayBuffer(n));
    const tables = { open, east: make(), west: make(), south: make(), north: make() };
    build = { tables, phase: cached ? 0 : -1, row: cached ? 1 : 0, carry: new Int32Array(pw) };
    pending.set(r, build);
  }
  const tables = build.tables;
  const open = tables.open;
  for (let polled = 0; build.phase < 3; polled++) {
    if (stop !== null && polled > 0 && polled % ROWS_PER_POLL === 0 && stop()) return null;
    const y = build.row;
    if (build.phase === -1) {
      // Open mask row y (padded row y + 1): the same test as openMask.
      const { tileCost, clearance } = layer;
      for (let x = 0, t = y * w, p = (y + 1) * pw + 1; x < w; x++, t++, p++) {
        if (tileCost[t] > 0 && (r === 0 || clearance[t] >= r)) open[p] = 1;
      }
      if (++build.row >= layer.height) {
        build.phase = 0;
        build.row = 1;
      }
    } else if (build.phase === 0) {
      sweep(open, tables.east, 1, pw, y * pw + pw - 2, pw - 2);
      sweep(open, tables.west, -1, pw, y * pw + 1, pw - 2);
      if (++build.row > ph - 2) {
        build.phase = 1;
        build.row = ph - 2;
      }
    } else if (build.phase === 1) {
      // Each row reads only the row below it (already swept), bottom up; the first reads the blocked border.
      sweepRow(open, tables.south, pw, y, pw, build.carry);
      if (--build.row < 1) {
        build.phase = 2;
        build.row = 1;
      }
    } else {
      sweepRow(open, tables.north, -pw, y, pw, build.carry);
      if (++build.row > ph - 2) build.phase = 3;
    }
  }
  pending.delete(r);
  let byClearance = openMasks.get(layer.tileCost);
  if (!byClearance) {
    byClearance = new Map();
    openMasks.set(layer.tileCost, byClearance);
  }
  byClearance.set(r, open);
  jumpTables.set(open, tables);
  // The mask and four tables, one byte a cell each.
  jumpCache.set(open, { byClearance, r }, 5 * n);
  onBuilt?.(layer, r, tables);
  return tables;
}
