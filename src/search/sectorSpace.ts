/**
 * A region's in-region search over sector-local state ids: the same moves, costs and heuristic as the wrapped
 * {@link RegionSpace}, but states number the tiles of the region's sector box (row-major, at most
 * sectorSize^2), so the search workspace is a few kilobytes instead of map-sized. A map-sized workspace spreads
 * one region's 16 rows over pages a whole map row apart (every step a cache and TLB miss on big maps) and keeps
 * 36 bytes a tile per workspace resident in every worker.
 *
 * The A* core breaks ties by key and insertion order, never by state id, and successors come in the wrapped
 * space's order, so a search here expands and answers exactly as the same search over tile ids.
 *
 * @module
 */
import type { SearchSpace, Successors } from "./astar.ts";
import type { RegionSpace } from "./restrictedGrid.ts";

/** A {@link RegionSpace} restricted to one region, with states renumbered within the region's sector box. */
export class SectorSpace implements SearchSpace {
  /** Tiles of the sector box. */
  stateCount = 0;
  /** Up to 8 grid moves. */
  readonly maxSuccessors = 8;
  private inner: RegionSpace | null = null;
  private width = 0;
  private x0 = 0;
  private y0 = 0;
  /** Width of the sector box (the last column of sectors may be narrower). */
  private boxWidth = 0;

  /**
   * Wraps `inner` (already restricted to the region) for the sector box [x0, x1) x [y0, y1) of a map `width`
   * tiles wide; returns this.
   */
  configure(inner: RegionSpace, width: number, x0: number, y0: number, x1: number, y1: number): this {
    this.inner = inner;
    this.width = width;
    this.x0 = x0;
    this.y0 = y0;
    this.boxWidth = x1 - x0;
    this.stateCount = (x1 - x0) * (y1 - y0);
    return this;
  }

  /** The tile of a local state. */
  tileOf(state: number): number {
    const row = (state / this.boxWidth) | 0;
    return (this.y0 + row) * this.width + this.x0 + (state - row * this.boxWidth);
  }

  /** The local state of a tile in the box. */
  stateOf(tile: number): number {
    const y = (tile / this.width) | 0;
    return (y - this.y0) * this.boxWidth + (tile - y * this.width - this.x0);
  }

  /** The wrapped space's moves, renumbered. */
  expand(state: number, out: Successors, parent: number): number {
    const n = this.inner!.expand(this.tileOf(state), out, parent < 0 ? parent : this.tileOf(parent));
    const ids = out.ids;
    for (let i = 0; i < n; i++) ids[i] = this.stateOf(ids[i]);
    return n;
  }

  /** The wrapped space's heuristic. */
  heuristic(state: number): number {
    return this.inner!.heuristic(this.tileOf(state));
  }

  /** The wrapped space's goal test. */
  isGoal(state: number): boolean {
    return this.inner!.isGoal(this.tileOf(state));
  }
}
