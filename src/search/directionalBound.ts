/**
 * The obstacle-aware grid bound of the directional search, computed lazily: a resumable backward A* over the
 * window's passable tiles (4-connected, from the goal tile, toward the start tile; Silver's "Reverse Resumable
 * A*"), resumed only as far as the tiles the directional search asks about. Per query it costs what the search
 * touches, not the window or the map: arrays are indexed by window tile, reused across queries, and read through
 * generation stamps (no clearing).
 *
 * The value for a tile is the one src/planning/directional.ts's eager `gridBound` gives (max(0,
 * floor(g / sqrt(2) - slack)), Infinity when the goal tile is unreachable inside the window), or, when a
 * lookup would need more backward expansions than its credit ({@link RESUME_INITIAL}), a weaker admissible one: a tile not yet
 * closed by A* with a consistent heuristic h has g* >= fMin - h (fMin the smallest open f), and g* is at least
 * its Manhattan distance to the goal times the cheapest step.
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";
import type { TileRect } from "../maps/layer.ts";
import { COST_SCALE } from "./astar.ts";

/**
 * Backward expansions a query may spend before its first lookup, and the credit each lookup adds: a lookup
 * resumes the search only as far as the credit saved so far allows, so the backward work stays within a constant
 * times the tiles the directional search asks about (a tile behind the start on open ground would otherwise ask
 * for every tile of the start-goal rectangle, all of equal f).
 */
export const RESUME_INITIAL = 4096;
/** See {@link RESUME_INITIAL}. */
export const RESUME_CREDIT = 64;

/** The lazy grid bound of one query (configure per query, reuse across queries). */
export class LazyGridBound {
  private g = new Float64Array(0);
  /** Generation in which the tile was reached (g valid). */
  private reached = new Uint32Array(0);
  /** Generation in which the tile was closed (g exact). */
  private closed = new Uint32Array(0);
  private gen = 0;
  // Binary min-heap of (f, window tile) with lazy deletion (stale entries are skipped when popped).
  private heapF = new Float64Array(16);
  private heapT = new Int32Array(16);
  private heapN = 0;
  private tileCost: Float32Array = new Float32Array(0);
  private road: Uint8Array | null = null;
  private mapWidth = 0;
  private x0 = 0;
  private y0 = 0;
  private w = 0;
  private h = 0;
  private startX = 0;
  private startY = 0;
  private goalX = 0;
  private goalY = 0;
  /** Fixed-point cost of the cheapest step (a lower bound of every step's rounded cost). */
  private step = 0;
  private slack = 0;
  /** Heap keys are f + h * tieScale (< f + 1): among equal f, the deepest entry first (f and h are integers). */
  private tieScale = 0;
  /** Every step costs the cheapest tile's cost (an admissible bound on costed maps; see configure). */
  private cheapest = false;
  /** Backward expansions the next lookups may spend (see {@link RESUME_INITIAL}). */
  private credit = 0;
  /** Backward expansions of this query (for statistics and tests). */
  expansions = 0;

  /** Lets go of the per-tile arrays above `keepBytes` between queries (they regrow); returns the bytes. */
  release(keepBytes: number): number {
    const bytes = 16 * this.g.length + 12 * this.heapF.length;
    if (bytes <= keepBytes) return 0;
    this.g = new Float64Array(0);
    this.reached = new Uint32Array(0);
    this.closed = new Uint32Array(0);
    this.gen = 0;
    this.heapF = new Float64Array(16);
    this.heapT = new Int32Array(16);
    this.heapN = 0;
    return bytes;
  }

  /**
   * Prepares a query: the window, the goal tile the backward search starts from and the start tile it heads
   * for (map coordinates). O(1) apart from growing the arrays when the window grows. With `cheapestSteps`
   * every step costs the cheapest tile's cost: on maps whose costs vary, charging each step its tile's cost
   * (the default) can exceed what a curve clipping a costly tile's corner pays, so the bound is then only an
   * estimate; a search that prunes by cost (A* maxCost) needs the admissible one.
   */
  configure(
    layer: PassLayer,
    window: TileRect,
    goalX: number,
    goalY: number,
    startX: number,
    startY: number,
    roadsOnly: boolean,
    cheapestSteps = false,
  ): this {
    this.tileCost = layer.tileCost;
    this.road = roadsOnly ? layer.road : null;
    this.mapWidth = layer.width;
    this.x0 = window.x0;
    this.y0 = window.y0;
    this.w = window.x1 - window.x0;
    this.h = window.y1 - window.y0;
    this.startX = startX;
    this.startY = startY;
    this.goalX = goalX;
    this.goalY = goalY;
    this.step = Math.floor(layer.minCost * COST_SCALE);
    this.slack = 2 * layer.minCost * COST_SCALE;
    this.expansions = 0;
    this.credit = RESUME_INITIAL;
    this.cheapest = cheapestSteps;
    const n = this.w * this.h;
    if (this.g.length < n) {
      this.g = new Float64Array(n);
      this.reached = new Uint32Array(n);
      this.closed = new Uint32Array(n);
      this.gen = 0;
    }
    if (this.gen >= 0xfffffffe) {
      this.reached.fill(0);
      this.closed.fill(0);
      this.gen = 0;
    }
    this.gen++;
    this.heapN = 0;
    this.tieScale = 1 /
      ((this.w + this.h + Math.abs(startX - goalX) + Math.abs(startY - goalY) + 2) * this.step + 1);
    // The goal tile starts the search even when closed (a goal tolerance may still be met around it).
    if (goalX >= this.x0 && goalY >= this.y0 && goalX < this.x0 + this.w && goalY < this.y0 + this.h) {
      const i = (goalY - this.y0) * this.w + (goalX - this.x0);
      this.reached[i] = this.gen;
      this.g[i] = 0;
      this.push(this.keyOf(0, this.hOf(goalX, goalY)), i);
    }
    return this;
  }

  /**
   * The bound (fixed point) at map tile (x, y): 0 outside the window, Infinity where the goal tile is not
   * reachable inside the window (see the module doc).
   */
  at(x: number, y: number): number {
    const lx = x - this.x0, ly = y - this.y0;
    if (lx < 0 || ly < 0 || lx >= this.w || ly >= this.h) return 0;
    const i = ly * this.w + lx;
    if (this.closed[i] !== this.gen) this.resume(i);
    if (this.closed[i] === this.gen) return Math.max(0, Math.floor(this.g[i] / Math.SQRT2 - this.slack));
    if (this.heapN === 0) return Infinity;
    // Not closed within the limit: fMin - h(tile) and the Manhattan distance both bound g* from below.
    const manhattan = (Math.abs(x - this.goalX) + Math.abs(y - this.goalY)) * this.step;
    const g = Math.max(manhattan, Math.floor(this.heapF[0]) - this.hOf(x, y));
    return Math.max(0, Math.floor(g / Math.SQRT2 - this.slack));
  }

  /**
   * The heap key of an entry: f = g + h, ties broken toward small h (deep entries), so that on open ground the
   * search runs straight at the start instead of widening over every tile of equal f.
   */
  private keyOf(g: number, h: number): number {
    return g + h + h * this.tieScale;
  }

  /** Manhattan distance to the start tile times the cheapest step: consistent for 4-connected steps. */
  private hOf(x: number, y: number): number {
    return (Math.abs(x - this.startX) + Math.abs(y - this.startY)) * this.step;
  }

  /** Runs the backward search until window tile `target` is closed, the open list empties or the limit. */
  private resume(target: number): void {
    const gen = this.gen;
    const g = this.g, reached = this.reached, closed = this.closed;
    const w = this.w, h = this.h;
    this.credit += RESUME_CREDIT;
    let budget = this.credit;
    while (this.heapN > 0 && budget > 0) {
      const f = this.heapF[0];
      const i = this.pop();
      if (closed[i] === gen) continue;
      const lx = i % w, ly = (i - lx) / w;
      const x = lx + this.x0, y = ly + this.y0;
      // Stale entry (a cheaper one was pushed later): skip.
      if (f > this.keyOf(g[i], this.hOf(x, y))) continue;
      closed[i] = gen;
      this.expansions++;
      budget--;
      this.credit--;
      const gi = g[i];
      for (let d = 0; d < 4; d++) {
        const nx = d === 0 ? lx + 1 : d === 1 ? lx - 1 : lx;
        const ny = d === 2 ? ly + 1 : d === 3 ? ly - 1 : ly;
        if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
        const mx = nx + this.x0, my = ny + this.y0;
        const t = my * this.mapWidth + mx;
        const c = this.tileCost[t];
        if (c <= 0 || (this.road !== null && this.road[t] !== 1)) continue;
        const j = ny * w + nx;
        if (closed[j] === gen) continue;
        const ng = gi + (this.cheapest ? this.step : Math.round(c * COST_SCALE));
        if (reached[j] === gen && g[j] <= ng) continue;
        reached[j] = gen;
        g[j] = ng;
        this.push(this.keyOf(ng, this.hOf(mx, my)), j);
      }
      if (i === target) return;
    }
  }

  private push(f: number, t: number): void {
    if (this.heapN === this.heapF.length) {
      const F = new Float64Array(this.heapN * 2), T = new Int32Array(this.heapN * 2);
      F.set(this.heapF);
      T.set(this.heapT);
      this.heapF = F;
      this.heapT = T;
    }
    const hf = this.heapF, ht = this.heapT;
    let k = this.heapN++;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (hf[p] <= f) break;
      hf[k] = hf[p];
      ht[k] = ht[p];
      k = p;
    }
    hf[k] = f;
    ht[k] = t;
  }

  private pop(): number {
    const hf = this.heapF, ht = this.heapT;
    const top = ht[0];
    const n = --this.heapN;
    if (n === 0) return top;
    const f = hf[n], t = ht[n];
    let k = 0;
    for (;;) {
      let c = 2 * k + 1;
      if (c >= n) break;
      if (c + 1 < n && hf[c + 1] < hf[c]) c++;
      if (hf[c] >= f) break;
      hf[k] = hf[c];
      ht[k] = ht[c];
      k = c;
    }
    hf[k] = f;
    ht[k] = t;
    return top;
  }
}
