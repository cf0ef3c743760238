/**
 * The tile grid restricted to a set of tiles, as A* spaces: {@link RegionSpace} (one region of a region table:
 * in-region distances and paths of the hierarchical search) and {@link CorridorSpace} (tiles near a path: the
 * corridor re-search). Both filter {@link GridSpace}'s moves by a per-tile label.
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import type { LocalRegionIds, RegionTable } from "../maps/regions.ts";
import type { SearchSpace, Successors } from "./astar.ts";
import { GridSpace, type Neighborhood } from "./gridSpace.ts";

/**
 * Keeps, in place, the first `n` successors in `out` whose tile has label `value` (CorridorSpace's stamps);
 * returns how many are kept.
 */
function keepLabelled(out: Successors, n: number, label: Int32Array, value: number): number {
  const ids = out.ids;
  const costs = out.costs;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    if (label[ids[i]] !== value) continue;
    ids[kept] = ids[i];
    costs[kept] = costs[i];
    kept++;
  }
  return kept;
}

/**
 * The grid restricted to one region's tiles, with a zero heuristic and no goal: an exhaustive search from a
 * tile yields the true in-region distance to every tile of the region (Dijkstra on the one A* core).
 */
export class RegionSpace implements SearchSpace {
  /** Tile ids. */
  stateCount = 0;
  /** Up to 8 grid moves. */
  readonly maxSuccessors = 8;
  private readonly grid = new GridSpace();
  private table: RegionTable | null = null;
  private regionLocal: LocalRegionIds = new Uint8Array(0);
  /** The region's local id and its sector's box [x0, x1) x [y0, y1) (local ids repeat across sectors). */
  private local = -1;
  private x0 = 0;
  private y0 = 0;
  private x1 = 0;
  private y1 = 0;
  private width = 0;
  private goal = -1;
  private layer: PassLayer | null = null;
  private clearance = 0;
  private neighborhood: Neighborhood = 8;

  /** Configures the layer, clearance class, neighbourhood and region table; returns this. */
  configure(layer: PassLayer, table: RegionTable, clearance: number, neighborhood: Neighborhood): this {
    this.layer = layer;
    this.clearance = clearance;
    this.neighborhood = neighborhood;
    this.grid.configure(layer, clearance, neighborhood, 0);
    this.stateCount = this.grid.stateCount;
    this.table = table;
    this.regionLocal = table.regionLocal;
    this.width = table.width;
    return this;
  }

  /**
   * Restricts the search to region r; with a goal tile (in r) the search stops there and uses the grid's
   * octile heuristic, without one (-1) it is exhaustive with a zero heuristic. Returns this.
   */
  restrict(region: number, goalTile = -1): this {
    const table = this.table!;
    const s = table.regionSector[region];
    const size = table.sectorSize;
    this.local = region - table.sectorRegionStart[s];
    this.x0 = (s % table.sectorsX) * size;
    this.y0 = ((s / table.sectorsX) | 0) * size;
    this.x1 = Math.min(table.width, this.x0 + size);
    this.y1 = Math.min(table.height, this.y0 + size);
    this.goal = goalTile;
    if (goalTile >= 0) this.grid.configure(this.layer!, this.clearance, this.neighborhood, goalTile);
    return this;
  }

  /** The unrestricted grid space whose moves {@link expand} filters (its open test and step costs). */
  get gridSpace(): GridSpace {
    return this.grid;
  }

  /** True for 8-neighbour moves. */
  get diagonal(): boolean {
    return this.neighborhood === 8;
  }

  /** Whether `tile`, a tile of the restricted region's sector box, is a tile of the region. */
  holds(tile: number): boolean {
    return this.regionLocal[tile] === this.local;
  }

  /** The grid moves that stay inside the region: its local id, inside its sector. */
  expand(state: number, out: Successors, parent: number): number {
    const n = this.grid.expand(state, out, parent);
    const ids = out.ids;
    const costs = out.costs;
    const { regionLocal, local, width, x0, y0, x1, y1 } = this;
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const t = ids[i];
      if (regionLocal[t] !== local) continue;
      const y = (t / width) | 0;
      const x = t - y * width;
      if (x < x0 || x >= x1 || y < y0 || y >= y1) continue;
      ids[kept] = t;
      costs[kept] = costs[i];
      kept++;
    }
    return kept;
  }

  /** The grid heuristic toward the goal tile, or zero without one. */
  heuristic(state: number): number {
    return this.goal < 0 ? 0 : this.grid.heuristic(state);
  }

  /** The goal tile (never without one: exhaustive). */
  isGoal(state: number): boolean {
    return state === this.goal;
  }
}

/**
 * The grid restricted to a corridor: tiles marked in a stamp array with the current corridor generation.
 * Used to re-search near a smoothed path: the optimal grid path inside the corridor is never longer than
 * the refined path the corridor was built around.
 */
export class CorridorSpace implements SearchSpace {
  /** Tile ids. */
  stateCount = 0;
  /** Up to 8 grid moves. */
  readonly maxSuccessors = 8;
  private grid: GridSpace = new GridSpace();
  /** Generation stamp per tile (for {@link keepLabelled}). */
  private mark: Int32Array = new Int32Array(0);
  private generation = 0;

  /**
   * Marks every tile within `radius` (Chebyshev) of each tile of `path` as the corridor and targets the
   * path's last tile; returns this.
   */
  configure(
    layer: PassLayer,
    clearance: number,
    neighborhood: Neighborhood,
    path: Int32Array,
    radius: number,
  ): this {
    const w = layer.width, h = layer.height;
    this.grid.configure(layer, clearance, neighborhood, path[path.length - 1]);
    this.stateCount = w * h;
    if (this.mark.length < w * h) {
      this.mark = new Int32Array(w * h);
      this.generation = 0;
    }
    if (this.generation >= 0x7ffffffe) {
      this.mark.fill(0);
      this.generation = 0;
    }
    const gen = ++this.generation;
    const mark = this.mark;
    for (let i = 0; i < path.length; i++) {
      const t = path[i];
      const y = (t / w) | 0, x = t - y * w;
      const x0 = Math.max(0, x - radius), x1 = Math.min(w - 1, x + radius);
      const y0 = Math.max(0, y - radius), y1 = Math.min(h - 1, y + radius);
      for (let yy = y0; yy <= y1; yy++) mark.fill(gen, yy * w + x0, yy * w + x1 + 1);
    }
    return this;
  }

  /** Grid moves that stay in the corridor. */
  expand(state: number, out: Successors, parent: number): number {
    return keepLabelled(out, this.grid.expand(state, out, parent), this.mark, this.generation);
  }

  /** The grid heuristic. */
  heuristic(state: number): number {
    return this.grid.heuristic(state);
  }

  /** The path's last tile. */
  isGoal(state: number): boolean {
    return this.grid.isGoal(state);
  }
}
