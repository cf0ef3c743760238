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

import type { PassLayer } from "../maps/grid.ts";
import { COST_SCALE, type SearchSpace, type Successors } from "./astar.ts";
import type { Neighborhood } from "./gridSpace.ts";

/** Fixed-point units per diagonal step at cost 1 (before rounding), as in GridSpace. */
const DIAGONAL_SCALE = Math.SQRT2 * COST_SCALE;

const uniformCosts = new WeakMap<Float32Array, number>();

/**
 * The cost shared by every passable tile of the layer, or 0 when passable tiles differ in cost (or there are
 * none). Computed once per layer (cached by its tileCost array).
 */
export function uniformCost(layer: PassLayer): number {
  const tileCost = layer.tileCost;
  let cost = uniformCosts.get(tileCost);
  if (cost === undefined) {
    cost = 0;
    for (let i = 0; i < tileCost.length; i++) {
      const c = tileCost[i];
      if (c <= 0) continue;
      if (cost === 0) cost = c;
      else if (c !== cost) {
        cost = 0;
        break;
      }
    }
    uniformCosts.set(tileCost, cost);
  }
  return cost;
}

/** True when a search over `layer` with `neighborhood` may use {@link JumpPointSpace} (8-connected, uniform). */
export function useJumpPoints(layer: PassLayer, neighborhood: Neighborhood): boolean {
  return neighborhood === 8 && uniformCost(layer) > 0;
}

const openMasks = new WeakMap<Float32Array, Map<number, Uint8Array>>();

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
    mask = new Uint8Array(pw * (h + 2));
    for (let y = 0; y < h; y++) {
      for (let x = 0, t = y * w, p = (y + 1) * pw + 1; x < w; x++, t++, p++) {
        if (tileCost[t] > 0 && (r === 0 || clearance[t] >= r)) mask[p] = 1;
      }
    }
    byClearance.set(r, mask);
  }
  return mask;
}

/** Jump-point grid space over a uniform-cost {@link PassLayer}; configure per query, reuse across queries. */
export class JumpPointSpace implements SearchSpace {
  /** Number of tiles (states are tile ids). */
  stateCount = 0;
  /** At most 8 jump directions per state. */
  readonly maxSuccessors = 8;
  private open: Uint8Array = new Uint8Array(0);
  private width = 0;
  /** Padded row length (width + 2). */
  private pw = 0;
  private goal = -1;
  /** The goal's index in the padded mask. */
  private goalP = -1;
  private goalX = 0;
  private goalY = 0;
  private straightCost = 0;
  private diagonalCost = 0;
  private hStraight = 0;
  private hDiagonal = 0;

  /**
   * Sets the layer (which must be uniform-cost: see {@link useJumpPoints}), the unit's minimum clearance r
   * (r <= 0: any passable tile) and the goal tile. Builds the open mask on the first use of (layer, r).
   */
  configure(layer: PassLayer, minClearance: number, goalTile: number): this {
    const cost = uniformCost(layer);
    if (cost <= 0) throw new RangeError("JumpPointSpace needs a layer whose passable tiles share one cost");
    this.open = openMask(layer, minClearance);
    this.width = layer.width;
    this.pw = layer.width + 2;
    this.stateCount = layer.width * layer.height;
    this.goal = goalTile;
    this.goalX = goalTile % layer.width;
    this.goalY = (goalTile - this.goalX) / layer.width;
    this.goalP = goalTile + 2 * this.goalY + this.pw + 1;
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
    let count = 0;
    if (parent < 0) {
      for (let sy = -1; sy <= 1; sy++) {
        for (let sx = -1; sx <= 1; sx++) {
          if (sx === 0 && sy === 0) continue;
          count = this.push(p, sx, sy, out, count);
        }
      }
      return count;
    }
    const py = (parent / w) | 0;
    const dx = Math.sign(x - (parent - py * w));
    const dy = Math.sign(y - py);
    if (dx !== 0 && dy !== 0) {
      // Diagonal: the three natural directions, no forced ones.
      count = this.push(p, dx, dy, out, count);
      count = this.push(p, dx, 0, out, count);
      count = this.push(p, 0, dy, out, count);
    } else if (dx !== 0) {
      count = this.push(p, dx, 0, out, count);
      // A side tile open now but blocked one step back is forced, with the diagonal toward it.
      if (open[p - pw] === 1 && open[p - pw - dx] === 0) {
        count = this.push(p, dx, -1, out, count);
        count = this.push(p, 0, -1, out, count);
      }
      if (open[p + pw] === 1 && open[p + pw - dx] === 0) {
        count = this.push(p, dx, 1, out, count);
        count = this.push(p, 0, 1, out, count);
      }
    } else {
      const step = dy * pw;
      count = this.push(p, 0, dy, out, count);
      if (open[p - 1] === 1 && open[p - 1 - step] === 0) {
        count = this.push(p, -1, dy, out, count);
        count = this.push(p, -1, 0, out, count);
      }
      if (open[p + 1] === 1 && open[p + 1 - step] === 0) {
        count = this.push(p, 1, dy, out, count);
        count = this.push(p, 1, 0, out, count);
      }
    }
    return count;
  }

  /** Jumps from padded index p in direction (sx, sy); on a hit writes the successor and returns count + 1. */
  private push(p: number, sx: number, sy: number, out: Successors, count: number): number {
    const pw = this.pw;
    let q: number;
    let cost: number;
    if (sx !== 0 && sy !== 0) {
      q = this.jumpDiagonal(p, sx, sy * pw);
      if (q < 0) return count;
      cost = this.diagonalCost;
    } else {
      const step = sx + sy * pw;
      q = this.jumpStraight(p, step, sx !== 0 ? pw : 1);
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
   * Scans from p by `step` (±1 or ±pw; `side` is the perpendicular offset) until a blocked tile (-1), the
   * goal, or a tile whose side is open but was blocked one step back (a jump point).
   */
  private jumpStraight(p: number, step: number, side: number): number {
    const open = this.open;
    const goal = this.goalP;
    let q = p + step;
    for (; open[q] === 1; q += step) {
      if (q === goal) return q;
      if (
        (open[q + side] === 1 && open[q + side - step] === 0) ||
        (open[q - side] === 1 && open[q - side - step] === 0)
      ) return q;
    }
    return -1;
  }

  /**
   * Steps diagonally from p by (sx, sy) (sy given as a padded row offset) while the step is legal (target and
   * both orthogonals open); stops at the goal or at a tile whose straight scans find a jump point.
   */
  private jumpDiagonal(p: number, sx: number, sy: number): number {
    const open = this.open;
    const goal = this.goalP;
    const step = sx + sy;
    let q = p;
    while (open[q + sx] === 1 && open[q + sy] === 1 && open[q + step] === 1) {
      q += step;
      if (q === goal) return q;
      if (this.jumpStraight(q, sx, this.pw) >= 0 || this.jumpStraight(q, sy, 1) >= 0) return q;
    }
    return -1;
  }

  /** Octile distance to the goal times layer.minCost, fixed point, rounded down (as GridSpace). */
  heuristic(state: number): number {
    const w = this.width;
    const y = (state / w) | 0;
    const x = state - y * w;
    let dx = x - this.goalX;
    let dy = y - this.goalY;
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    return dx < dy
      ? dx * this.hDiagonal + (dy - dx) * this.hStraight
      : dy * this.hDiagonal + (dx - dy) * this.hStraight;
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
