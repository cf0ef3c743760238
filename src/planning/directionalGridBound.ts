/**
 * The eager obstacle-aware grid bound of the directional search: one backward Dijkstra from the goal tile over
 * a whole window. The search itself uses the lazy one (src/search/directionalBound.ts), which gives the same
 * values for the tiles it touches; this one is the reference the tests compare it with.
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";
import type { TileRect } from "../maps/layer.ts";
import {
  astar,
  COST_SCALE,
  newSearchResult,
  type SearchSpace,
  SearchWorkspace,
  type Successors,
} from "../search/astar.ts";
import { GridSpace } from "../search/gridSpace.ts";
import type { PlanContext } from "./context.ts";
import { onReleaseScratch } from "./scratch.ts";

/** 4-connected Dijkstra over the grid inside a window (heuristic 0, no goal): an exhaustive backward search. */
class WindowedGrid implements SearchSpace {
  stateCount = 0;
  readonly maxSuccessors = 4;
  grid = new GridSpace();
  window: TileRect = { x0: 0, y0: 0, x1: 0, y1: 0 };
  width = 0;
  road: Uint8Array | null = null;

  configure(layer: PassLayer, window: TileRect, roadsOnly: boolean): this {
    // Clearance 0: any passable tile. The unit's center stays on passable tiles, so this never cuts it off.
    this.grid.configure(layer, 0, 4, -1);
    this.stateCount = this.grid.stateCount;
    this.window = window;
    this.width = layer.width;
    this.road = roadsOnly ? layer.road : null;
    return this;
  }

  expand(state: number, out: Successors, parent: number): number {
    const n = this.grid.expand(state, out, parent);
    const w = this.window;
    let k = 0;
    for (let i = 0; i < n; i++) {
      const t = out.ids[i];
      const y = (t / this.width) | 0;
      const x = t - y * this.width;
      if (x < w.x0 || y < w.y0 || x >= w.x1 || y >= w.y1) continue;
      if (this.road && this.road[t] !== 1) continue;
      out.ids[k] = t;
      out.costs[k] = out.costs[i];
      k++;
    }
    return k;
  }

  heuristic(_state: number): number {
    return 0;
  }

  isGoal(_state: number): boolean {
    return false;
  }
}

interface BoundState {
  gridWorkspace: SearchWorkspace;
  windowed: WindowedGrid;
  bound: Float64Array;
}

const perContext = new WeakMap<PlanContext, BoundState>();

function stateFor(ctx: PlanContext): BoundState {
  let s = perContext.get(ctx);
  if (!s) {
    s = { gridWorkspace: new SearchWorkspace(), windowed: new WindowedGrid(), bound: new Float64Array(0) };
    perContext.set(ctx, s);
    const st = s;
    onReleaseScratch(ctx, (keep) => {
      let n = st.gridWorkspace.release(keep);
      if (st.bound.byteLength > keep) {
        n += st.bound.byteLength;
        st.bound = new Float64Array(0);
      }
      return n;
    });
  }
  return s;
}

/**
 * The obstacle-aware lower bound per map tile (fixed point; Infinity where the goal tile cannot be reached
 * inside the window, -1 outside the window). One backward Dijkstra from the goal tile, 4-connected, over
 * passable tiles (road tiles only when confined to roads).
 *
 * Why a lower bound: the unit's center only crosses passable tiles, and a continuous path crossing a corner
 * point would overlap all four tiles there, so the center's tiles form a 4-connected chain; a chain whose
 * continuous length is L has at most L1 <= sqrt(2) * L unit steps plus one at each end. The 4-connected grid
 * distance g is at most that chain's step count, so g / sqrt(2) - 2 <= L (times the cheapest tile cost).
 * 4-connected rather than 8-connected: the argument only needs a 4-connected chain, and on diagonal
 * stretches the 4-connected distance is sqrt(2) times larger (the bound is then the Euclidean length
 * instead of 71% of it), which cuts Directional-24 expansions through doors several-fold. With terrain costs above the minimum the
 * tile-by-tile charging of the grid and of the curves differ, and the bound is then an estimate.
 */
export function gridBound(
  ctx: PlanContext,
  layer: PassLayer,
  window: TileRect,
  goalTile: number,
  roadsOnly: boolean,
): Float64Array {
  const st = stateFor(ctx);
  const n = layer.width * layer.height;
  if (st.bound.length < n) st.bound = new Float64Array(n);
  const bound = st.bound;
  bound.fill(-1, 0, n);
  const space = st.windowed.configure(layer, window, roadsOnly);
  const r = astar(space, st.gridWorkspace, [goalTile], {
    maxExpansions: Infinity,
    deadline: Infinity,
    cancel: null,
    trackNearest: false,
  }, newSearchResult());
  void r;
  const ws = st.gridWorkspace;
  const slack = 2 * layer.minCost * COST_SCALE;
  for (let y = window.y0; y < window.y1; y++) {
    for (let x = window.x0; x < window.x1; x++) {
      const t = y * layer.width + x;
      if (!ws.reached(t)) bound[t] = Infinity;
      else bound[t] = Math.max(0, Math.floor(ws.gOf(t) / Math.SQRT2 - slack));
    }
  }
  return bound;
}
