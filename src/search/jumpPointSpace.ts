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
 * Straight scans read JPS+ style distance tables over the map padded by one blocked tile, so scans need no
 * bounds checks; the open test is the east table's {@link BLOCKED} (one byte a tile, no mask of its own). They
 * are built and cached by jumpTables.ts (re-exported here).
 *
 * @module
 */

import { type PassLayer, uniformCost } from "../maps/grid.ts";
import { COST_SCALE, type SearchSpace, type Successors } from "./astar.ts";
import { DIAGONAL_SCALE, gridHeuristic, type Neighborhood } from "./gridSpace.ts";
import {
  BLOCKED,
  eastDistance,
  type JumpDistances,
  LONG_RUN,
  longRun,
  straightJumpsUntil,
} from "./jumpTables.ts";

export {
  adoptJumpTables,
  forgetJumpTables,
  hasJumpTables,
  JUMP_CACHE_BYTES,
  jumpCacheSize,
  type JumpDistances,
  jumpTableBytes,
  onJumpTablesBuilt,
  openMask,
  setJumpCacheLimit,
  type StraightJumps,
  straightJumps,
  straightJumpsUntil,
} from "./jumpTables.ts";

/** True when a search over `layer` with `neighborhood` may use {@link JumpPointSpace} (8-connected, uniform). */
export function useJumpPoints(layer: PassLayer, neighborhood: Neighborhood): boolean {
  return neighborhood === 8 && uniformCost(layer) > 0;
}

/** Jump-point grid space over a uniform-cost {@link PassLayer}; configure per query, reuse across queries. */
export class JumpPointSpace implements SearchSpace {
  /** Number of tiles (states are tile ids). */
  stateCount = 0;
  /** At most 8 jump directions per state. */
  readonly maxSuccessors = 8;
  /** Also the open test: {@link BLOCKED} exactly where a tile is not open. */
  private east: JumpDistances = new Int8Array(0);
  private west: JumpDistances = new Int8Array(0);
  private south: JumpDistances = new Int8Array(0);
  private north: JumpDistances = new Int8Array(0);
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
    return this.east[t + 2 * y + this.pw + 1] !== BLOCKED;
  }

  /**
   * Jump points reachable from `state` by the directions JPS keeps after pruning (all 8 from a start), each
   * with its run's fixed-point cost.
   */
  expand(state: number, out: Successors, parent: number): number {
    const w = this.width;
    const pw = this.pw;
    const open = this.east;
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
      if (open[p - pw] !== BLOCKED && open[p - pw - dx] === BLOCKED) {
        count = this.push(p, px, dx, -1, out, count);
        count = this.push(p, px, 0, -1, out, count);
      }
      if (open[p + pw] !== BLOCKED && open[p + pw - dx] === BLOCKED) {
        count = this.push(p, px, dx, 1, out, count);
        count = this.push(p, px, 0, 1, out, count);
      }
    } else {
      const step = dy * pw;
      count = this.push(p, px, 0, dy, out, count);
      if (open[p - 1] !== BLOCKED && open[p - 1 - step] === BLOCKED) {
        count = this.push(p, px, -1, dy, out, count);
        count = this.push(p, px, -1, 0, out, count);
      }
      if (open[p + 1] !== BLOCKED && open[p + 1 - step] === BLOCKED) {
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
    let d = sx > 0 ? this.east[p] : this.west[p];
    // One compare for both rare entries: a long run, or (east only) a blocked start's cell.
    if (d <= BLOCKED) d = this.rareHorizontal(p, sx);
    const delta = (this.goalP - p) * sx;
    if (delta > 0 && delta <= (d > 0 ? d : -d)) return this.goalP;
    return d > 0 ? p + d * sx : -1;
  }

  /**
   * The true distance of a horizontal table entry that is {@link LONG_RUN} or (east) {@link BLOCKED}: out of
   * {@link jumpHorizontal}, which stays small enough to be inlined into the diagonal scan.
   */
  private rareHorizontal(p: number, sx: number): number {
    return sx > 0 ? eastDistance(this.east, p, this.pw) : longRun(this.west, p, -1);
  }

  /** As {@link jumpHorizontal} for a vertical scan by sy (±1 rows) from p in padded column px. */
  private jumpVertical(p: number, px: number, sy: number): number {
    let d = sy > 0 ? this.south[p] : this.north[p];
    const pw = this.pw;
    if (d === LONG_RUN) d = longRun(sy > 0 ? this.south : this.north, p, sy * pw);
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
    const open = this.east;
    const goal = this.goalP;
    const rowStep = sy * this.pw;
    const step = sx + rowStep;
    let q = p;
    let qx = px;
    while (open[q + sx] !== BLOCKED && open[q + rowStep] !== BLOCKED && open[q + step] !== BLOCKED) {
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
