/**
 * The tile grid as an A* search space: states are tile ids (t = y * width + x), moves are 4- or 8-connected
 * with no corner cutting, and a tile is open for a unit of radius r when it is passable and its clearance is
 * at least r.
 *
 * @module
 */

import { clearanceCodeAtLeast, type PassLayer } from "../maps/grid.ts";
import { COST_SCALE, type SearchSpace, type Successors } from "./astar.ts";

/** Fixed-point units per diagonal step at cost 1 (before rounding). */
export const DIAGONAL_SCALE = Math.SQRT2 * COST_SCALE;

/** Neighbourhood of a grid search. */
export type Neighborhood = 4 | 8;

// Directions in circular order so a rotation keeps nearby directions adjacent: even = straight, odd = diagonal.
const DX = Int8Array.of(1, 1, 0, -1, -1, -1, 0, 1);
const DY = Int8Array.of(0, 1, 1, 1, 0, -1, -1, -1);

/** Grid search space over a {@link PassLayer}; configure it per query, reuse it (allocation-free) across queries. */
export class GridSpace implements SearchSpace {
  /** Number of tiles. */
  stateCount = 0;
  /** At most 8 moves per tile. */
  readonly maxSuccessors = 8;
  private tileCost: Float32Array = new Float32Array(0);
  private clearance: Uint8Array = new Uint8Array(0);
  private width = 0;
  private height = 0;
  /** The least clearance code of an open tile, or -1 for a point unit (passability alone). */
  private minCode = -1;
  private diagonal = true;
  private goal = -1;
  private goalX = 0;
  private goalY = 0;
  private hStraight = 0;
  private hDiagonal = 0;
  /** Tile-id offset per direction for the configured width. */
  private readonly offset = new Int32Array(8);

  /**
   * Sets the layer, the unit's minimum clearance r (r <= 0: any passable tile), the neighbourhood and the goal
   * tile. Allocation-free; returns this.
   */
  configure(layer: PassLayer, minClearance: number, neighborhood: Neighborhood, goalTile: number): this {
    this.tileCost = layer.tileCost;
    this.clearance = layer.clearanceCode;
    this.width = layer.width;
    this.height = layer.height;
    this.stateCount = layer.width * layer.height;
    this.minCode = minClearance > 0 ? clearanceCodeAtLeast(minClearance) : -1;
    this.diagonal = neighborhood === 8;
    this.goal = goalTile;
    this.goalX = goalTile % layer.width;
    this.goalY = (goalTile - this.goalX) / layer.width;
    // Rounded down so h never exceeds the rounded edge costs of even the cheapest terrain (admissible and
    // consistent: each move changes h by at most its own lower bound).
    this.hStraight = Math.floor(layer.minCost * COST_SCALE);
    this.hDiagonal = Math.floor(layer.minCost * DIAGONAL_SCALE);
    for (let d = 0; d < 8; d++) this.offset[d] = DY[d] * layer.width + DX[d];
    return this;
  }

  /** True if a unit of the configured clearance may stand on tile t (t must be on the map). */
  isOpen(t: number): boolean {
    return this.tileCost[t] > 0 && this.clearance[t] >= this.minCode;
  }

  /** Fixed-point cost of a straight step onto tile t. */
  straightCost(t: number): number {
    return Math.round(this.tileCost[t] * COST_SCALE);
  }

  /** Fixed-point cost of a diagonal step onto tile t. */
  diagonalCost(t: number): number {
    return Math.round(this.tileCost[t] * DIAGONAL_SCALE);
  }

  /**
   * Open neighbours of `state` with their costs. Successors are emitted starting from the parent's direction
   * and rotating outward, so among equal keys the straight continuation is generated (and pushed) first: a
   * deterministic preference for straight runs that never changes which costs are optimal.
   */
  expand(state: number, out: Successors, parent: number): number {
    const w = this.width;
    const y = (state / w) | 0;
    const x = state - y * w;
    const tileCost = this.tileCost;
    let mask = 0;
    if (this.minCode === -1) {
      // Point unit: passability alone (skips the clearance reads).
      if (x + 1 < w && tileCost[state + 1] > 0) mask |= 1 << 0;
      if (y + 1 < this.height && tileCost[state + w] > 0) mask |= 1 << 2;
      if (x > 0 && tileCost[state - 1] > 0) mask |= 1 << 4;
      if (y > 0 && tileCost[state - w] > 0) mask |= 1 << 6;
      if (this.diagonal) {
        // A diagonal needs both orthogonal neighbours open; that also keeps it on the map.
        if ((mask & 0b101) === 0b101 && tileCost[state + w + 1] > 0) mask |= 1 << 1;
        if ((mask & 0b10100) === 0b10100 && tileCost[state + w - 1] > 0) mask |= 1 << 3;
        if ((mask & 0b1010000) === 0b1010000 && tileCost[state - w - 1] > 0) mask |= 1 << 5;
        if ((mask & 0b1000001) === 0b1000001 && tileCost[state - w + 1] > 0) mask |= 1 << 7;
      }
    } else {
      const clearance = this.clearance;
      const r = this.minCode;
      let t = state + 1;
      if (x + 1 < w && tileCost[t] > 0 && clearance[t] >= r) mask |= 1 << 0;
      t = state + w;
      if (y + 1 < this.height && tileCost[t] > 0 && clearance[t] >= r) mask |= 1 << 2;
      t = state - 1;
      if (x > 0 && tileCost[t] > 0 && clearance[t] >= r) mask |= 1 << 4;
      t = state - w;
      if (y > 0 && tileCost[t] > 0 && clearance[t] >= r) mask |= 1 << 6;
      if (this.diagonal) {
        t = state + w + 1;
        if ((mask & 0b101) === 0b101 && tileCost[t] > 0 && clearance[t] >= r) mask |= 1 << 1;
        t = state + w - 1;
        if ((mask & 0b10100) === 0b10100 && tileCost[t] > 0 && clearance[t] >= r) mask |= 1 << 3;
        t = state - w - 1;
        if ((mask & 0b1010000) === 0b1010000 && tileCost[t] > 0 && clearance[t] >= r) mask |= 1 << 5;
        t = state - w + 1;
        if ((mask & 0b1000001) === 0b1000001 && tileCost[t] > 0 && clearance[t] >= r) mask |= 1 << 7;
      }
    }
    // Start at the parent's direction and rotate: the straight continuation comes first, and the core keeps
    // the first of equally good successors for immediate expansion, so straight runs win ties.
    let first = 0;
    if (parent >= 0) {
      const py = (parent / w) | 0;
      first = DIRECTION_OF[(x - (parent - py * w) + 1) * 3 + (y - py + 1)];
    }
    const offset = this.offset;
    const ids = out.ids;
    const costs = out.costs;
    let count = 0;
    for (let k = 0; k < 8; k++) {
      const d = (first + k) & 7;
      if ((mask & (1 << d)) === 0) continue;
      const t = state + offset[d];
      ids[count] = t;
      costs[count] = Math.round(tileCost[t] * ((d & 1) === 0 ? COST_SCALE : DIAGONAL_SCALE));
      count++;
    }
    return count;
  }

  /** Octile (8) or Manhattan (4) distance to the goal times layer.minCost, fixed point, rounded down. */
  heuristic(state: number): number {
    return gridHeuristic(
      state,
      this.width,
      this.goalX,
      this.goalY,
      this.hStraight,
      this.hDiagonal,
      this.diagonal,
    );
  }

  /** True for the configured goal tile. */
  isGoal(state: number): boolean {
    return state === this.goal;
  }
}

/**
 * Distance from tile `state` (rows `width` wide) to the goal tile (goalX, goalY) in fixed point, hStraight per
 * straight and hDiagonal per diagonal step: octile when `diagonal`, else Manhattan. The heuristic of GridSpace
 * and JumpPointSpace (small: V8 inlines it into their heuristic).
 */
export function gridHeuristic(
  state: number,
  width: number,
  goalX: number,
  goalY: number,
  hStraight: number,
  hDiagonal: number,
  diagonal: boolean,
): number {
  const y = (state / width) | 0;
  const x = state - y * width;
  let dx = x - goalX;
  let dy = y - goalY;
  if (dx < 0) dx = -dx;
  if (dy < 0) dy = -dy;
  if (!diagonal) return (dx + dy) * hStraight;
  return dx < dy ? dx * hDiagonal + (dy - dx) * hStraight : dy * hDiagonal + (dx - dy) * hStraight;
}

/** Direction index 0..7 of the unit move (dx, dy), looked up at (dx + 1) * 3 + (dy + 1) (0 for a non-move). */
const DIRECTION_OF = Int8Array.of(
  5, // (-1,-1) NW
  4, // (-1, 0) W
  3, // (-1, 1) SW
  6, // ( 0,-1) N
  0, // ( 0, 0) none
  2, // ( 0, 1) S
  7, // ( 1,-1) NE
  0, // ( 1, 0) E
  1, // ( 1, 1) SE
);

/**
 * Exact float64 length of a tile path: each step costs 1 (straight) or Math.SQRT2 (diagonal) times the
 * tileCost of the tile it enters. This, not the fixed-point search cost, is the reported length.
 */
export function gridPathLength(layer: PassLayer, path: Int32Array, width: number): number {
  const tileCost = layer.tileCost;
  let length = 0;
  for (let i = 1; i < path.length; i++) {
    const a = path[i - 1];
    const b = path[i];
    const diagonal = a % width !== b % width && ((a / width) | 0) !== ((b / width) | 0);
    length += (diagonal ? Math.SQRT2 : 1) * tileCost[b];
  }
  return length;
}
