/**
 * Jump Point Search (Harabor & Grastien 2011; no-corner-cutting rules as in their 2014 "Improving JPS") as a
 * {@link SearchSpace} for the one A* core: states are still tile ids, but a state's successors are the jump
 * points reached by scanning straight and diagonal runs from it, with the run's exact octile cost. Optimal only
 * on uniform-cost layers, so {@link useJumpPoints} decides when it may replace {@link GridSpace}.
 *
 * Movement rules are GridSpace's 8-connected ones: a tile is open when tileCost > 0 and clearance >= r, and a
 * diagonal step needs both orthogonal neighbours open (no corner cutting). Pruning rules derived for them,
 * with p the tile we came from and x the current tile:
 *
 * - Straight move east (others by symmetry). The side tile n = x + N is reached from p by a diagonal of cost
 *   √2 < 2 whenever p + N is open (x is open), so n is pruned; if p + N is blocked, x is the only way to n at
 *   that cost: n is forced, and so is the diagonal x + NE (its alternative p -> n -> x + NE also needs p + N).
 *   So a straight run stops (x is a jump point) where a side tile is open but was blocked one step back; the
 *   forced successors are that side's straight direction and the diagonal toward it.
 * - Diagonal move north-east. The move itself proves x + W and x + S open, so every neighbour other than N, E
 *   and NE has a path from p at most as long that avoids x: a diagonal move has no forced neighbours. A
 *   diagonal run stops at a tile whose straight N or E scan finds a jump point (or the goal), and ends (no
 *   successor) where the next diagonal step is illegal: what lies beyond is reached by the straight scans,
 *   whose forced-neighbour rule fires exactly at the blocked orthogonal.
 *
 * Each successor is reached by one pure run (straight or diagonal), so the jump-point path expands back into
 * tiles by {@link expandJumpPath}, and the fixed-point run cost is k times GridSpace's rounded step cost: the
 * core's costs equal GridSpace's exactly.
 *
 * The open test is precomputed once per (layer, clearance) as a byte mask with a one-tile blocked border, so
 * scans read one byte per tile and need no bounds checks. Layers are immutable once built, so the masks are
 * cached by the layer's tileCost array.
 *
 * @module
 */

import { type PassLayer, uniformCost } from "../maps/grid.ts";
import { ByteLru } from "./byteLru.ts";
import { COST_SCALE, type SearchSpace, type Successors } from "./astar.ts";
import { DIAGONAL_SCALE, gridHeuristic, type Neighborhood } from "./gridSpace.ts";

/** True when a search over `layer` with `neighborhood` may use {@link JumpPointSpace} (8-connected, uniform). */
export function useJumpPoints(layer: PassLayer, neighborhood: Neighborhood): boolean {
  return neighborhood === 8 && uniformCost(layer) > 0;
}

const openMasks = new WeakMap<Float32Array, Map<number, Uint8Array>>();

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
 * Straight jump distances (JPS+ style) over the padded mask, one array per direction (E, W, S, N): for an
 * open cell, k > 0 means the straight scan meets a jump point k steps away; k <= 0 means it runs -k open steps
 * and then hits a blocked cell. A scan's outcome depends only on the cells it crosses (the forced test looks
 * one step back along the scan), so one sweep per direction against the scan direction fills the table.
 */
/**
 * A jump-distance table: Int16 when every distance fits (maps up to 32,765 tiles a side: half the memory of
 * Int32, 8 bytes a tile less per clearance class and worker), Int32 beyond.
 */
export type JumpDistances = Int16Array | Int32Array;

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
 * thread already has are kept (the same distances either way).
 */
export function adoptJumpTables(layer: PassLayer, minClearance: number, tables: StraightJumps): void {
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
  if (have && jumpTables.has(have)) return;
  pendingBuilds.get(layer.tileCost)?.delete(r); // a build of our own stopped half way is not needed now
  if (have) jumpCache.delete(have);
  byClearance.set(r, tables.open);
  jumpTables.set(tables.open, tables);
  jumpCache.set(tables.open, { byClearance, r }, jumpTableBytes(tables));
}

/**
 * Fills dist for the `count` cells of one line scanned by `step` (side = perpendicular offset), from the
 * line's last cell `q` back against the scan. Every cell gets a value, blocked ones too (a start may be).
 */
function sweep(
  open: Uint8Array,
  dist: JumpDistances,
  step: number,
  side: number,
  q: number,
  count: number,
): void {
  for (let i = 0; i < count; i++, q -= step) {
    const next = q + step;
    if (open[next] !== 1) dist[q] = 0;
    else if (
      (open[next + side] === 1 && open[q + side] === 0) || (open[next - side] === 1 && open[q - side] === 0)
    ) dist[q] = 1;
    else {
      const d = dist[next];
      dist[q] = d > 0 ? d + 1 : d - 1;
    }
  }
}

/**
 * {@link sweep} for the vertical tables, row by row: `count` rows from row `y0` stepping `dy` (against the scan
 * `step` = +-pw), every inner column of a row at once. Each cell reads only the cell one row back in the scan, so
 * this fills exactly what per-column sweeps fill, reading memory in order (a column sweep strides a whole row
 * per cell: 4x slower on a 4096-wide map).
 */
function sweepRows(
  open: Uint8Array,
  dist: JumpDistances,
  step: number,
  y0: number,
  dy: number,
  count: number,
  pw: number,
): void {
  for (let i = 0, y = y0; i < count; i++, y += dy) {
    for (let q = y * pw + 1, end = y * pw + pw - 1; q < end; q++) {
      const next = q + step;
      if (open[next] !== 1) dist[q] = 0;
      else if ((open[next + 1] === 1 && open[q + 1] === 0) || (open[next - 1] === 1 && open[q - 1] === 0)) {
        dist[q] = 1;
      } else {
        const d = dist[next];
        dist[q] = d > 0 ? d + 1 : d - 1;
      }
    }
  }
}

/** A jump table build under way: the tables allocated and how far the passes got (see straightJumpsUntil). */
interface JumpBuild {
  tables: StraightJumps;
  /** -1: open mask rows, 0: east/west rows, 1: south rows (bottom up), 2: north rows (top down). */
  phase: number;
  /** The next row of the phase (map rows in phase -1, padded rows after). */
  row: number;
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
  // Distances are at most the padded side less 2 (a whole row or column), in either sign.
  const Dist = Math.max(pw, ph) <= 32767 ? Int16Array : Int32Array;
  let pending = pendingBuilds.get(layer.tileCost);
  if (!pending) {
    pending = new Map();
    pendingBuilds.set(layer.tileCost, pending);
  }
  let build = pending.get(r);
  if (!build) {
    // Over shared memory, so other workers can adopt them (adoptJumpTables) instead of building their own.
    const make = (): JumpDistances =>
      Dist === Int16Array
        ? new Int16Array(new SharedArrayBuffer(2 * n))
        : new Int32Array(new SharedArrayBuffer(4 * n));
    // A mask built already (openMask) is kept; else its rows are the build's first pass.
    const open = cached ?? new Uint8Array(new SharedArrayBuffer(n));
    const tables = { open, east: make(), west: make(), south: make(), north: make() };
    build = { tables, phase: cached ? 0 : -1, row: cached ? 1 : 0 };
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
      // Each row reads only the row below it (already swept), bottom up.
      sweepRows(open, tables.south, pw, y, -1, 1, pw);
      if (--build.row < 1) {
        build.phase = 2;
        build.row = 1;
      }
    } else {
      sweepRows(open, tables.north, -pw, y, 1, 1, pw);
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
  // The mask (1 byte a cell) and four tables (8 or 16): the entry holds 9 or 17 bytes a cell.
  jumpCache.set(open, { byClearance, r }, (1 + 4 * Dist.BYTES_PER_ELEMENT) * n);
  onBuilt?.(layer, r, tables);
  return tables;
}

/** Jump-point grid space over a uniform-cost {@link PassLayer}; configure per query, reuse across queries. */
export class JumpPointSpace implements SearchSpace {
  /** Number of tiles (states are tile ids). */
  stateCount = 0;
  /** At most 8 jump directions per state. */
  readonly maxSuccessors = 8;
  private open: Uint8Array = new Uint8Array(0);
  private east: JumpDistances = new Int16Array(0);
  private west: JumpDistances = new Int16Array(0);
  private south: JumpDistances = new Int16Array(0);
  private north: JumpDistances = new Int16Array(0);
  private width = 0;
  /** Padded row length (width + 2). */
  private pw = 0;
  private goal = -1;
  /** The goal's index in the padded mask, and its padded column. */
  private goalP = -1;
  private goalPx = 0;
  private goalX = 0;
  private goalY = 0;
  private straightCost = 0;
  private diagonalCost = 0;
  private hStraight = 0;
  private hDiagonal = 0;

  /**
   * Sets the layer (which must be uniform-cost: see {@link useJumpPoints}), the unit's minimum clearance r
   * (r <= 0: any passable tile) and the goal tile. Builds the open mask and straight jump tables on the first
   * use of (layer, r).
   */
  configure(layer: PassLayer, minClearance: number, goalTile: number): this {
    return this.configureUntil(layer, minClearance, goalTile, null)!;
  }

  /**
   * {@link configure} with the first use's table build under `stop` (see {@link straightJumpsUntil}): null when
   * it stopped the build (the next call goes on from there).
   */
  configureUntil(
    layer: PassLayer,
    minClearance: number,
    goalTile: number,
    stop: (() => boolean) | null,
  ): this | null {
    const cost = uniformCost(layer);
    if (cost <= 0) throw new RangeError("JumpPointSpace needs a layer whose passable tiles share one cost");
    const tables = straightJumpsUntil(layer, minClearance, stop);
    if (tables === null) return null;
    this.open = tables.open;
    this.east = tables.east;
    this.west = tables.west;
    this.south = tables.south;
    this.north = tables.north;
    this.width = layer.width;
    this.pw = layer.width + 2;
    this.stateCount = layer.width * layer.height;
    this.goal = goalTile;
    this.goalX = goalTile % layer.width;
    this.goalY = (goalTile - this.goalX) / layer.width;
    this.goalP = goalTile + 2 * this.goalY + this.pw + 1;
    this.goalPx = this.goalX + 1;
    // The same rounding as GridSpace's per-step costs and heuristic, so costs and ties match it exactly.
    this.straightCost = Math.round(cost * COST_SCALE);
    this.diagonalCost = Math.round(cost * DIAGONAL_SCALE);
    this.hStraight = Math.floor(layer.minCost * COST_SCALE);
    this.hDiagonal = Math.floor(layer.minCost * DIAGONAL_SCALE);
    return this;
  }

  /** True if a unit of the configured clearance may stand on tile t (t must be on the map). */
  isOpen(t: number): boolean {
    const y = (t / this.width) | 0;
    return this.open[t + 2 * y + this.pw + 1] === 1;
  }

  /**
   * Jump points reachable from `state` by the directions JPS keeps after pruning (all 8 from a start), each
   * with its run's fixed-point cost.
   */
  expand(state: number, out: Successors, parent: number): number {
    const w = this.width;
    const pw = this.pw;
    const open = this.open;
    const y = (state / w) | 0;
    const x = state - y * w;
    const p = state + 2 * y + pw + 1;
    const px = x + 1;
    let count = 0;
    if (parent < 0) {
      for (let sy = -1; sy <= 1; sy++) {
        for (let sx = -1; sx <= 1; sx++) {
          if (sx === 0 && sy === 0) continue;
          count = this.push(p, px, sx, sy, out, count);
        }
      }
      return count;
    }
    const py = (parent / w) | 0;
    const dx = Math.sign(x - (parent - py * w));
    const dy = Math.sign(y - py);
    if (dx !== 0 && dy !== 0) {
      // Diagonal: the three natural directions, no forced ones.
      count = this.push(p, px, dx, dy, out, count);
      count = this.push(p, px, dx, 0, out, count);
      count = this.push(p, px, 0, dy, out, count);
    } else if (dx !== 0) {
      count = this.push(p, px, dx, 0, out, count);
      // A side tile open now but blocked one step back is forced, with the diagonal toward it.
      if (open[p - pw] === 1 && open[p - pw - dx] === 0) {
        count = this.push(p, px, dx, -1, out, count);
        count = this.push(p, px, 0, -1, out, count);
      }
      if (open[p + pw] === 1 && open[p + pw - dx] === 0) {
        count = this.push(p, px, dx, 1, out, count);
        count = this.push(p, px, 0, 1, out, count);
      }
    } else {
      const step = dy * pw;
      count = this.push(p, px, 0, dy, out, count);
      if (open[p - 1] === 1 && open[p - 1 - step] === 0) {
        count = this.push(p, px, -1, dy, out, count);
        count = this.push(p, px, -1, 0, out, count);
      }
      if (open[p + 1] === 1 && open[p + 1 - step] === 0) {
        count = this.push(p, px, 1, dy, out, count);
        count = this.push(p, px, 1, 0, out, count);
      }
    }
    return count;
  }

  /**
   * Jumps from padded index p (padded column px) in direction (sx, sy); on a hit writes the successor and
   * returns count + 1.
   */
  private push(p: number, px: number, sx: number, sy: number, out: Successors, count: number): number {
    const pw = this.pw;
    let q: number;
    let cost: number;
    if (sx !== 0 && sy !== 0) {
      q = this.jumpDiagonal(p, px, sx, sy);
      if (q < 0) return count;
      cost = this.diagonalCost;
    } else if (sx !== 0) {
      q = this.jumpHorizontal(p, sx);
      if (q < 0) return count;
      cost = this.straightCost;
    } else {
      q = this.jumpVertical(p, px, sy);
      if (q < 0) return count;
      cost = this.straightCost;
    }
    const qy = (q / pw) | 0;
    const py = (p / pw) | 0;
    // Steps along the run: the row change for anything that moves vertically, else the column change.
    const steps = sy !== 0 ? (qy > py ? qy - py : py - qy) : (q > p ? q - p : p - q);
    out.ids[count] = q - 2 * qy - pw + 1;
    out.costs[count] = steps * cost;
    return count + 1;
  }

  /**
   * The straight scan from p by sx (±1) from the table: the goal if the scan crosses it, else the jump point,
   * else -1 (a blocked tile first). The cells the scan crosses are open and in p's row, so a goal within
   * reach is on the scan.
   */
  private jumpHorizontal(p: number, sx: number): number {
    const d = sx > 0 ? this.east[p] : this.west[p];
    const delta = (this.goalP - p) * sx;
    if (delta > 0 && delta <= (d > 0 ? d : -d)) return this.goalP;
    return d > 0 ? p + d * sx : -1;
  }

  /** As {@link jumpHorizontal} for a vertical scan by sy (±1 rows) from p in padded column px. */
  private jumpVertical(p: number, px: number, sy: number): number {
    const d = sy > 0 ? this.south[p] : this.north[p];
    const pw = this.pw;
    if (px === this.goalPx) {
      const delta = (this.goalP - p) * sy;
      if (delta > 0 && delta <= (d > 0 ? d : -d) * pw) return this.goalP;
    }
    return d > 0 ? p + d * sy * pw : -1;
  }

  /**
   * Steps diagonally from p (padded column px) by (sx, sy) while the step is legal (target and both
   * orthogonals open); stops at the goal or at a tile whose straight scans find a jump point (or the goal).
   */
  private jumpDiagonal(p: number, px: number, sx: number, sy: number): number {
    const open = this.open;
    const goal = this.goalP;
    const rowStep = sy * this.pw;
    const step = sx + rowStep;
    let q = p;
    let qx = px;
    while (open[q + sx] === 1 && open[q + rowStep] === 1 && open[q + step] === 1) {
      q += step;
      qx += sx;
      if (q === goal) return q;
      if (this.jumpHorizontal(q, sx) >= 0 || this.jumpVertical(q, qx, sy) >= 0) return q;
    }
    return -1;
  }

  /** Octile distance to the goal times layer.minCost, fixed point, rounded down (as GridSpace). */
  heuristic(state: number): number {
    return gridHeuristic(state, this.width, this.goalX, this.goalY, this.hStraight, this.hDiagonal, true);
  }

  /** True for the configured goal tile. */
  isGoal(state: number): boolean {
    return state === this.goal;
  }
}

/**
 * The full tile path of a jump-point path: between consecutive points, the diagonal run (min(|dx|, |dy|)
 * steps) then the straight run, the order a jump takes. JumpPointSpace's jumps are pure runs, so each leg is
 * one kind and every step is a legal move (the jump checked each diagonal step's orthogonals).
 */
export function expandJumpPath(layer: PassLayer, path: Int32Array): Int32Array {
  const w = layer.width;
  let n = path.length > 0 ? 1 : 0;
  for (let i = 1; i < path.length; i++) {
    const a = path[i - 1];
    const b = path[i];
    const ady = Math.abs(((b / w) | 0) - ((a / w) | 0));
    const adx = Math.abs((b % w) - (a % w));
    n += adx > ady ? adx : ady;
  }
  const tiles = new Int32Array(n);
  if (path.length === 0) return tiles;
  let k = 0;
  tiles[k++] = path[0];
  for (let i = 1; i < path.length; i++) {
    const a = path[i - 1];
    const b = path[i];
    const ay = (a / w) | 0;
    const by = (b / w) | 0;
    const ax = a - ay * w;
    const bx = b - by * w;
    const sx = Math.sign(bx - ax);
    const sy = Math.sign(by - ay);
    const adx = Math.abs(bx - ax);
    const ady = Math.abs(by - ay);
    const diagonal = adx < ady ? adx : ady;
    let t = a;
    for (let j = 0; j < diagonal; j++) tiles[k++] = t += sx + sy * w;
    const straight = (adx > ady ? adx : ady) - diagonal;
    const step = adx > ady ? sx : sy * w;
    for (let j = 0; j < straight; j++) tiles[k++] = t += step;
  }
  return tiles;
}
