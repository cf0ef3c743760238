/**
 * The straight jump tables of {@link JumpPointSpace} (jumpPointSpace.ts), JPS+ style: per (layer, clearance
 * class) and straight direction, how far a scan from each cell of the map padded by one blocked cell runs. Built
 * once (in slices when a budget asks, resumable), cached in a bounded per-worker LRU, shared with the other
 * workers over SharedArrayBuffer.
 *
 * Distances are one signed byte a cell: exact when they fit in -126 .. 126, else {@link LONG_RUN}, "the scan
 * crosses the next {@link LONG_STEP} cells without stopping: read on from there" (a scan's value one cell on is
 * its value here less one step, while it neither stops nor meets a jump point). Long runs are rare on real maps
 * (a stop every few dozen tiles), so the hot loop pays one compare, and the tables hold 4 bytes a cell instead
 * of 8 (Int16) or 16 (Int32).
 *
 * The open test needs no mask of its own (it was a fifth byte a cell, 2 of issue 13's bytes per tile with the two
 * built-in classes): the east table holds {@link BLOCKED} exactly at the cells that are not open (the padding
 * too), a value no distance takes. A blocked cell's east distance (only a blocked start scans from one) is
 * worked out from its neighbour's ({@link eastDistance}).
 *
 * @module
 */

import { clearanceCodeAtLeast, type PassLayer } from "../maps/grid.ts";
import { ByteLru } from "./byteLru.ts";

/** Each layer's tables by clearance class, keyed by their east table (the set's identity in the caches). */
const tableSets = new WeakMap<Float32Array, Map<number, Int8Array>>();

/** The stored value of a distance beyond one byte: read on {@link LONG_STEP} cells further along the scan. */
export const LONG_RUN = -128;

/** The east table's value at a cell that is not open (blocked for the class, or padding); no distance is. */
export const BLOCKED = -127;

/** Cells a {@link LONG_RUN} entry skips: the largest exact magnitude. */
export const LONG_STEP = 126;

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

/**
 * The true distance stored at `p` of a table scanned by `step` (see {@link longRun}); for the east table use
 * {@link eastDistance}, which also answers at cells that are not open.
 */
export function jumpDistance(dist: JumpDistances, p: number, step: number): number {
  const d = dist[p];
  return d === LONG_RUN ? longRun(dist, p, step) : d;
}

/**
 * The true east distance at padded cell `p` (padded row length `pw`): as {@link jumpDistance}, and at a cell
 * that is not open ({@link BLOCKED}) the value the sweep gives it, from the next cell east (rules of sweep).
 */
export function eastDistance(east: JumpDistances, p: number, pw: number): number {
  const d = east[p];
  if (d === LONG_RUN) return longRun(east, p, 1);
  if (d !== BLOCKED) return d;
  const next = p + 1;
  if (next >= east.length || east[next] === BLOCKED) return 0;
  if (
    (p + pw < east.length && east[next + pw] !== BLOCKED && east[p + pw] === BLOCKED) ||
    (p >= pw && east[next - pw] !== BLOCKED && east[p - pw] === BLOCKED)
  ) return 1;
  const dn = jumpDistance(east, next, 1);
  return dn > 0 ? dn + 1 : dn - 1;
}

/**
 * Bytes of jump tables a worker keeps, least recently used out first. They are built per map
 * version and clearance class, and clients choose unit radii freely (hundreds of classes up to radius 16), so
 * without a bound a client could grow a worker until it runs out of memory.
 */
export const JUMP_CACHE_BYTES = 256 * 1024 * 1024;

/** The (layer, r) entries by east table; an evicted entry leaves both caches. */
const jumpCache = new ByteLru<Int8Array, { byClearance: Map<number, Int8Array>; r: number }>(
  JUMP_CACHE_BYTES,
  (east, entry) => {
    entry.byClearance.delete(entry.r);
    jumpTables.delete(east);
  },
);

/**
 * Forgets a layer's jump tables at once (the worker calls this when the service drops the layer's map version),
 * instead of leaving them to age out of the bounded cache.
 */
export function forgetJumpTables(layer: PassLayer): void {
  pendingBuilds.delete(layer.tileCost);
  const byClearance = tableSets.get(layer.tileCost);
  if (!byClearance) return;
  for (const east of byClearance.values()) {
    jumpCache.delete(east);
    jumpTables.delete(east);
  }
  tableSets.delete(layer.tileCost);
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
 * (y + 1) * (width + 2) + (x + 1) is 1 when tile (x, y) is open for clearance r (r <= 0: passable). Not cached
 * and not what searches read (the east table holds the same test, {@link BLOCKED}): for tests and tools.
 */
export function openMask(layer: PassLayer, minClearance: number): Uint8Array {
  const r = minClearance > 0 ? minClearance : 0;
  const w = layer.width;
  const pw = w + 2;
  const { tileCost, clearanceCode } = layer;
  const rc = clearanceCodeAtLeast(r);
  const mask = new Uint8Array(pw * (layer.height + 2));
  for (let y = 0; y < layer.height; y++) {
    for (let x = 0, t = y * w, p = (y + 1) * pw + 1; x < w; x++, t++, p++) {
      if (tileCost[t] > 0 && clearanceCode[t] >= rc) mask[p] = 1;
    }
  }
  return mask;
}

/**
 * A jump-distance table over the padded map: for an open cell, k > 0 means the straight scan meets a jump point
 * k steps away; k <= 0 means it runs -k open steps and then hits a blocked cell; stored one byte a cell (see the
 * module comment: {@link LONG_RUN} entries continue further along the scan, {@link BLOCKED} in the east table).
 */
export type JumpDistances = Int8Array;

/** Straight jump distances of one (layer, clearance class), over shared memory (see {@link straightJumps}). */
export interface StraightJumps {
  /** Scanning east (+1); {@link BLOCKED} exactly where a cell is not open (the open test). */
  east: JumpDistances;
  /** Scanning west (-1). */
  west: JumpDistances;
  /** Scanning south (+padded row). */
  south: JumpDistances;
  /** Scanning north (-padded row). */
  north: JumpDistances;
}

const jumpTables = new WeakMap<Int8Array, StraightJumps>();

/** Told of every table set this thread builds itself (the worker publishes it to the others). */
let onBuilt: ((layer: PassLayer, minClearance: number, tables: StraightJumps) => void) | null = null;

/** Registers the listener told of each jump table set this thread builds (to share it); null removes it. */
export function onJumpTablesBuilt(
  cb: ((layer: PassLayer, minClearance: number, tables: StraightJumps) => void) | null,
): void {
  onBuilt = cb;
}

/** Bytes of a jump table set (four distance tables). */
export function jumpTableBytes(t: StraightJumps): number {
  return 4 * t.east.byteLength;
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
  if (tables.east.length !== n || tables.north.length !== n) {
    throw new RangeError(`adoptJumpTables: tables of ${tables.east.length} cells for a layer of ${n}`);
  }
  let byClearance = tableSets.get(layer.tileCost);
  if (!byClearance) {
    byClearance = new Map();
    tableSets.set(layer.tileCost, byClearance);
  }
  const have = byClearance.get(r);
  if (have === tables.east || (have && jumpTables.has(have) && !replace)) return;
  if (have) jumpTables.delete(have);
  pendingBuilds.get(layer.tileCost)?.delete(r); // a build of our own stopped half way is not needed now
  if (have) jumpCache.delete(have);
  byClearance.set(r, tables.east);
  jumpTables.set(tables.east, tables);
  // Not in the per-thread LRU: the sharer holds them until the layer goes (forgetJumpTables), so evicting them
  // here frees nothing and only has the next query build them again (8192^2: one set is 336 MB, over the bound).
}

/**
 * Takes (layer, r)'s tables, built by this thread, out of the per-thread LRU: they were shared and the sharer
 * holds them (and counts them in its budget) until the layer goes, see {@link adoptJumpTables}.
 */
export function shareJumpTables(layer: PassLayer, minClearance: number): void {
  const east = tableSets.get(layer.tileCost)?.get(minClearance > 0 ? minClearance : 0);
  if (east !== undefined && jumpTables.has(east)) jumpCache.delete(east);
}

/** The byte stored for true distance d: itself when it fits, else {@link LONG_RUN}. */
function encode(d: number): number {
  return d > LONG_STEP || d < -LONG_STEP ? LONG_RUN : d;
}

/**
 * Fills dist for the `count` cells of one line scanned by `step` (side = perpendicular offset), from the
 * line's last cell `q` back against the scan, reading the open test from `open` (the east table: a cell is open
 * unless it holds {@link BLOCKED}). Every cell gets a value, blocked ones too (a start may be). The true distance
 * one cell on is carried in `d` (the table may hold {@link LONG_RUN} there).
 */
function sweep(
  open: Int8Array,
  dist: JumpDistances,
  step: number,
  side: number,
  q: number,
  count: number,
): void {
  let d = 0;
  for (let i = 0; i < count; i++, q -= step) {
    const next = q + step;
    if (open[next] === BLOCKED) d = 0;
    else if (
      (open[next + side] !== BLOCKED && open[q + side] === BLOCKED) ||
      (open[next - side] !== BLOCKED && open[q - side] === BLOCKED)
    ) d = 1;
    else d = d > 0 ? d + 1 : d - 1;
    dist[q] = d > LONG_STEP || d < -LONG_STEP ? LONG_RUN : d;
  }
}

/**
 * {@link sweep} of the east table itself (the open test it reads), one row from its last cell `q`: open cells
 * get their distance, blocked ones keep {@link BLOCKED} (the test the rest of the build and the search read).
 */
function sweepEast(east: Int8Array, side: number, q: number, count: number): void {
  let d = 0;
  for (let i = 0; i < count; i++, q--) {
    const here = east[q];
    const next = q + 1;
    if (east[next] === BLOCKED) d = 0;
    else if (
      (east[next + side] !== BLOCKED && east[q + side] === BLOCKED) ||
      (east[next - side] !== BLOCKED && east[q - side] === BLOCKED)
    ) d = 1;
    else d = d > 0 ? d + 1 : d - 1;
    if (here !== BLOCKED) east[q] = d > LONG_STEP || d < -LONG_STEP ? LONG_RUN : d;
  }
}

/**
 * {@link sweep} for the vertical tables, one row `y` (against the scan `step` = +-pw), every inner column at
 * once, reading memory in order (a column sweep strides a whole row per cell: 4x slower on a 4096-wide map).
 * Each cell reads only the cell one row back in the scan, whose true distance is `carry[column]` (updated
 * here), so this fills exactly what per-column sweeps fill.
 */
function sweepRow(
  open: Int8Array,
  dist: JumpDistances,
  step: number,
  y: number,
  pw: number,
  carry: Int32Array,
): void {
  for (let x = 1, q = y * pw + 1; x < pw - 1; x++, q++) {
    const next = q + step;
    let d: number;
    if (open[next] === BLOCKED) d = 0;
    else if (
      (open[next + 1] !== BLOCKED && open[q + 1] === BLOCKED) ||
      (open[next - 1] !== BLOCKED && open[q - 1] === BLOCKED)
    ) {
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
  /** -1: open test rows (into the east table), 0: east/west rows, 1: south rows (bottom up), 2: north rows. */
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
  const east = tableSets.get(layer.tileCost)?.get(minClearance > 0 ? minClearance : 0);
  return east !== undefined && jumpTables.has(east);
}

/** The straight jump distances for (layer, r), built on first use and cached. */
export function straightJumps(layer: PassLayer, minClearance: number): StraightJumps {
  return straightJumpsUntil(layer, minClearance, null)!;
}

/**
 * {@link straightJumps} under a `stop` condition, polled every {@link ROWS_PER_POLL} rows (of the open test,
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
  const cached = tableSets.get(layer.tileCost)?.get(r);
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
    // Every cell blocked (the padding stays so); the first pass opens the open ones.
    const tables = { east: make().fill(BLOCKED), west: make(), south: make(), north: make() };
    build = { tables, phase: -1, row: 0, carry: new Int32Array(pw) };
    pending.set(r, build);
  }
  const tables = build.tables;
  const open = tables.east;
  for (let polled = 0; build.phase < 3; polled++) {
    if (stop !== null && polled > 0 && polled % ROWS_PER_POLL === 0 && stop()) return null;
    const y = build.row;
    if (build.phase === -1) {
      // Open test of row y (padded row y + 1): the same test as openMask.
      const { tileCost, clearanceCode } = layer;
      // r === 0 gives code 0: every passable tile.
      const rc = clearanceCodeAtLeast(r);
      for (let x = 0, t = y * w, p = (y + 1) * pw + 1; x < w; x++, t++, p++) {
        if (tileCost[t] > 0 && clearanceCode[t] >= rc) open[p] = 0;
      }
      if (++build.row >= layer.height) {
        build.phase = 0;
        build.row = 1;
      }
    } else if (build.phase === 0) {
      // The east sweep overwrites open cells only: the test (BLOCKED or not) holds throughout.
      sweepEast(open, pw, y * pw + pw - 2, pw - 2);
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
  let byClearance = tableSets.get(layer.tileCost);
  if (!byClearance) {
    byClearance = new Map();
    tableSets.set(layer.tileCost, byClearance);
  }
  byClearance.set(r, tables.east);
  jumpTables.set(tables.east, tables);
  // Four tables, one byte a cell each.
  jumpCache.set(tables.east, { byClearance, r }, 4 * n);
  onBuilt?.(layer, r, tables);
  return tables;
}
