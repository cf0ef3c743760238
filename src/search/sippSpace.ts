/**
 * Safe-interval path planning (SIPP, Phillips & Likhachev 2011) as a {@link SearchSpace} of the one A* core: a
 * route chosen in space and time for a unit that moves between tile centres at one speed and turns in place.
 * A tile's safe intervals are the maximal times when no one else is near it (the complement of what
 * `occupied` reports); a state is (tile, safe interval), reached at the earliest time it can be, and a unit may
 * wait inside an interval. Cost = arrival time after the start, fixed point (COST_SCALE units per second), so
 * the first goal expanded is the earliest arrival. The goal is the goal tile's last interval (free forever: the
 * unit stays there). With `leaveStart`, what takes the start tile at the start time is left out: the unit stands
 * there now (legally, by the caller's finer check), so that is another unit near it, closer than the padded model
 * allows; the unit may stand on until the next taking and leave.
 *
 * A move from A to B of duration m leaving at `dep` keeps the unit near A until dep + m/2 and near B from then
 * on (each half of a move lies within half a step of its end tile's centre): A's interval must last until
 * dep + m/2 and B's contain it. The caller pads `occupied` by half a step so the swept move is covered. Moves are
 * 8-connected as the grid planner's (gridSpace.ts): a tile is open when passable with clearance >= the unit's, a
 * diagonal needs both orthogonal neighbours open. Terrain costs are not speeds here: the unit drives every tile
 * at `speed`. States get ids as they are first reached, up to `maxStates` (beyond it, new states are skipped).
 *
 * @module
 */
import { clearanceCodeAtLeast, type PassLayer } from "../maps/grid.ts";
import {
  astar,
  COST_SCALE,
  type SearchLimits,
  type SearchSpace,
  type SearchWorkspace,
  type Successors,
} from "./astar.ts";

const DX = Int8Array.of(1, 1, 0, -1, -1, -1, 0, 1);
const DY = Int8Array.of(0, 1, 1, 1, 0, -1, -1, -1);
/** Intervals per tile a state id key makes room for (more are not searched). */
const MAX_INTERVALS = 1024;

/** A SIPP query: the map, the unit and when each tile is taken. */
export interface SippQuery {
  /** The map layer (passability and clearance). */
  layer: PassLayer;
  /** The unit's clearance radius (tiles; a tile is open when its clearance is at least this). */
  clearance: number;
  /** Start tile id (y * width + x) and the time the unit stands there. */
  start: number;
  /** Fleet time at the start, seconds. */
  startTime: number;
  /** Goal tile id. */
  goal: number;
  /** Driving speed between tile centres, tiles per second (> 0). */
  speed: number;
  /**
   * When tile `t` is taken by others: sorted disjoint closed time ranges as pairs [from0, to0, from1, to1, ...]
   * in seconds (to may be Infinity, from -Infinity). Called once per tile a search reaches. An answer must not
   * change once given (the safe intervals made from it are kept by its identity).
   */
  occupied: (t: number) => ArrayLike<number>;
  /** Most states (tile, interval) a search may create. */
  maxStates: number;
  /**
   * Whether what takes the start tile at the start time is left out (see the module doc: a unit halted beside
   * another, closer than the padded model allows). Off: no route when the start is taken then.
   */
  leaveStart?: boolean;
}

/** A route found by {@link sippRoute}: the tiles in order and the time each is reached. */
export interface SippRoute {
  /** Tile ids from the start tile to the goal tile. */
  tiles: Int32Array;
  /** Arrival time at each tile (the start's is the start time); the unit leaves tile i at times[i+1] - move. */
  times: Float64Array;
}

/** The SIPP state space (configure per query; see the module doc). */
export class SippSpace implements SearchSpace {
  /** States that may be created (the query's maxStates). */
  stateCount = 0;
  /** 8 neighbours, each with possibly several intervals. */
  readonly maxSuccessors = 8 * 64;
  #q!: SippQuery;
  #ws!: SearchWorkspace;
  #width = 0;
  /** The least clearance code of an open tile (the query's clearance as a code). */
  #minCode = 0;
  /** Safe intervals per tile reached in this query: pairs [lo, hi] (tiles in #touched). */
  #safe: (Float64Array | undefined)[] = [];
  /** State id of interval 0 of each tile reached (its intervals' ids follow), -1 when none yet. */
  #base = new Int32Array(0);
  /** Tiles whose #safe / #base entries are set in this query. */
  readonly #touched: number[] = [];
  #tile = new Int32Array(0);
  #interval = new Int32Array(0);
  #count = 0;
  #goalX = 0;
  #goalY = 0;
  /** Fixed-point seconds per tile at the unit's speed. */
  #perTile = 0;

  /** Sets the query and the workspace the core searches with (expand reads arrival times from it). */
  configure(q: SippQuery, ws: SearchWorkspace): this {
    if (!(q.speed > 0)) throw new RangeError(`sipp speed must be > 0, got ${q.speed}`);
    this.#q = q;
    this.#ws = ws;
    this.#width = q.layer.width;
    this.#minCode = clearanceCodeAtLeast(q.clearance);
    this.stateCount = Math.max(1, q.maxStates);
    const tiles = q.layer.width * q.layer.height;
    if (this.#base.length < tiles) {
      this.#base = new Int32Array(tiles).fill(-1);
      this.#safe = new Array(tiles);
      this.#touched.length = 0;
    }
    for (const t of this.#touched) {
      this.#base[t] = -1;
      this.#safe[t] = undefined;
    }
    this.#touched.length = 0;
    if (this.#tile.length < this.stateCount) {
      this.#tile = new Int32Array(this.stateCount);
      this.#interval = new Int32Array(this.stateCount);
    }
    this.#count = 0;
    this.#goalX = q.goal % this.#width;
    this.#goalY = (q.goal - this.#goalX) / this.#width;
    this.#perTile = COST_SCALE / q.speed;
    return this;
  }

  /**
   * Safe intervals by the `occupied` answer they complement (no leaveStart): a caller that keeps its answer for a
   * tile across queries (fleetSipp.ts: the detour pass's searches, one per unit, reach the same tiles while few
   * units change between them) has them computed once.
   */
  readonly #safeOf = new WeakMap<ArrayLike<number>, Float64Array>();

  /** The safe intervals of tile t (pairs [lo, hi], sorted), computed once per query. */
  safeIntervals(t: number): Float64Array {
    let s = this.#safe[t];
    if (s) return s;
    const occ = this.#q.occupied(t);
    const start = t === this.#q.start && this.#q.leaveStart ? this.#q.startTime : NaN;
    s = start !== start ? this.#safeOf.get(occ) : undefined;
    if (!s) {
      s = complement(occ, start);
      if (start !== start) this.#safeOf.set(occ, s);
    }
    this.#safe[t] = s;
    this.#touched.push(t);
    return s;
  }

  /**
   * The state id of (tile, interval): a tile's intervals get consecutive ids when the tile is first reached; -1
   * when the state budget is spent (or the tile has more than MAX_INTERVALS intervals: the later are not searched).
   */
  stateOf(t: number, interval: number): number {
    let base = this.#base[t];
    if (base < 0) {
      const n = Math.min(MAX_INTERVALS, this.safeIntervals(t).length / 2);
      if (this.#count + n > this.stateCount) return -1;
      base = this.#base[t] = this.#count;
      for (let j = 0; j < n; j++) {
        this.#tile[base + j] = t;
        this.#interval[base + j] = j;
      }
      this.#count += n;
    }
    return interval < MAX_INTERVALS ? base + interval : -1;
  }

  /** Tile of a state. */
  tileOf(state: number): number {
    return this.#tile[state];
  }

  /** Fleet time at which a reached state is entered (from the workspace's cost of the latest search). */
  timeOf(state: number): number {
    return this.#q.startTime + this.#ws.gOf(state) / COST_SCALE;
  }

  #open(t: number): boolean {
    const layer = this.#q.layer;
    return layer.tileCost[t] > 0 && layer.clearanceCode[t] >= this.#minCode;
  }

  /** Moves to each open neighbour's intervals reachable from this state's (see the module doc). */
  expand(state: number, out: Successors, _parent: number): number {
    const w = this.#width, h = this.#q.layer.height;
    const tile = this.#tile[state];
    const x = tile % w, y = (tile - x) / w;
    const mine = this.safeIntervals(tile);
    const hiA = mine[2 * this.#interval[state] + 1];
    const g = this.#ws.gOf(state), t = this.#q.startTime + g / COST_SCALE;
    let mask = 0;
    for (let d = 0; d < 8; d += 2) {
      const nx = x + DX[d], ny = y + DY[d];
      if (nx >= 0 && ny >= 0 && nx < w && ny < h && this.#open(ny * w + nx)) mask |= 1 << d;
    }
    for (let d = 1; d < 8; d += 2) {
      // A diagonal needs both orthogonal neighbours open (no corner cutting), which also keeps it on the map.
      const a = (d + 7) & 7, b = (d + 1) & 7;
      if ((mask & (1 << a)) && (mask & (1 << b)) && this.#open(tile + DY[d] * w + DX[d])) mask |= 1 << d;
    }
    let n = 0;
    for (let d = 0; d < 8; d++) {
      if ((mask & (1 << d)) === 0) continue;
      const nt = tile + DY[d] * w + DX[d];
      const m = (d & 1) === 0 ? 1 / this.#q.speed : Math.SQRT2 / this.#q.speed;
      const iv = this.safeIntervals(nt);
      for (let j = 0; j < iv.length && n < this.maxSuccessors; j += 2) {
        const a = iv[j], b = iv[j + 1];
        // The unit is handed over from A to B halfway through the move, at dep + m/2.
        const over = Math.max(t + m / 2, a);
        if (over > hiA) break; // later intervals start later still
        if (over >= b) continue;
        const id = this.stateOf(nt, j / 2);
        if (id < 0) continue;
        out.ids[n] = id;
        out.costs[n] = Math.max(0, Math.round((over + m / 2 - this.#q.startTime) * COST_SCALE) - g);
        n++;
      }
    }
    return n;
  }

  /** Octile distance to the goal at the unit's speed, fixed point, rounded down (admissible). */
  heuristic(state: number): number {
    const tile = this.#tile[state], x = tile % this.#width, y = (tile - x) / this.#width;
    const dx = Math.abs(x - this.#goalX), dy = Math.abs(y - this.#goalY);
    const diag = Math.min(dx, dy), straight = Math.max(dx, dy) - diag;
    return Math.floor((diag * Math.SQRT2 + straight) * this.#perTile * (1 - 1e-9));
  }

  /** The goal tile in its last interval (free for good). */
  isGoal(state: number): boolean {
    if (this.#tile[state] !== this.#q.goal) return false;
    const iv = this.safeIntervals(this.#q.goal);
    return this.#interval[state] === iv.length / 2 - 1 && iv[iv.length - 1] === Infinity;
  }
}

/**
 * The complement of taken ranges `occ` (sorted pairs): the safe intervals. With `start` (not NaN: leaveStart), a
 * range that holds the tile at that time is left out.
 */
function complement(occ: ArrayLike<number>, start: number): Float64Array {
  const out: number[] = [];
  let lo = -Infinity;
  for (let i = 0; i < occ.length; i += 2) {
    // leaveStart: the unit stands on its start tile now, legally: a range that holds the tile at the start time
    // is someone near it now, closer than the padded tile-centre model allows (two units halted side by side in
    // the open take each other's tiles for good). It may stand on and leave.
    if (occ[i] <= start && start <= occ[i + 1]) continue;
    if (occ[i] > lo) out.push(lo, occ[i]);
    lo = Math.max(lo, occ[i + 1]);
  }
  if (lo < Infinity) out.push(lo, Infinity);
  return Float64Array.from(out);
}

/**
 * The earliest-arriving route of a SIPP query on the A* core, or null when there is none within `limits` (or
 * the start tile is taken at the start time). `space` and `ws` are reused across queries.
 */
export function sippRoute(
  space: SippSpace,
  ws: SearchWorkspace,
  q: SippQuery,
  limits: SearchLimits,
): SippRoute | null {
  space.configure(q, ws);
  const iv = space.safeIntervals(q.start);
  let first = -1;
  for (let j = 0; j < iv.length; j += 2) {
    if (iv[j] <= q.startTime && q.startTime < iv[j + 1]) first = j / 2;
  }
  // The goal tile must be free for good at some point (else every search would exhaust the space).
  const goal = space.safeIntervals(q.goal);
  if (first < 0 || goal.length === 0 || goal[goal.length - 1] !== Infinity) return null;
  const start = space.stateOf(q.start, first);
  const res = astar(space, ws, [start], limits);
  if (res.status !== "found") return null;
  const states: number[] = [];
  for (let s = res.goal; s !== -1; s = ws.parentOf(s)) states.push(s);
  states.reverse();
  return {
    tiles: Int32Array.from(states, (s) => space.tileOf(s)),
    times: Float64Array.from(states, (s) => space.timeOf(s)),
  };
}
