/**
 * A region's in-region search over sector-local state ids: the same moves, costs and heuristic as the wrapped
 * {@link RegionSpace}, but states number the tiles of the region's sector box (row-major, at most
 * sectorSize^2), so the search workspace is a few kilobytes instead of map-sized. A map-sized workspace spreads
 * one region's 16 rows over pages a whole map row apart (every step a cache and TLB miss on big maps) and keeps
 * 36 bytes a tile per workspace resident in every worker.
 *
 * The moves are made once per configure by the wrapped space's rules (clearance, no corner cutting, the region
 * filter) into a per-cell direction mask and step costs; an expansion then rotates them from the
 * parent's direction exactly as GridSpace does. The A* core breaks ties by key and insertion order, never by
 * state id, and successors come in the wrapped space's order, so a search here expands and answers exactly as
 * the same search over tile ids, about twice as fast.
 *
 * @module
 */
import { type SearchSpace, type SearchWorkspace, Successors } from "./astar.ts";
import type { RegionSpace } from "./restrictedGrid.ts";

/** GridSpace's direction numbering: unit steps per direction, and the direction of a step (dx, dy). */
const DX = Int8Array.of(1, 1, 0, -1, -1, -1, 0, 1);
const DY = Int8Array.of(0, 1, 1, 1, 0, -1, -1, -1);
const DIRECTION_OF = Int8Array.of(5, 4, 3, 6, 0, 2, 7, 0, 1);

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
  /** Per local cell during {@link configure}: bit 0 open, bit 1 a tile of the region. */
  private open = new Uint8Array(256);
  /** Per local cell during {@link configure}: the fixed-point cost of a straight and of a diagonal step onto it. */
  private straight = new Float64Array(256);
  private diagonalCost = new Float64Array(256);
  /** Per local cell: bit d set when the move in direction d (GridSpace's numbering) is allowed. */
  private moves = new Uint8Array(256);
  /** Per local cell and direction: the move's fixed-point cost. */
  private stepCost = new Float64Array(256 * 8);
  /** Local id offset per direction for the configured box width. */
  private readonly offset = new Int32Array(8);
  private readonly probe = new Successors(8);
  /** Per local state: the generation of the search it is a target of (see exhaustiveFrom). */
  private targetMark = new Uint32Array(256);

  /**
   * Wraps `inner` (already restricted to the region) for the sector box [x0, x1) x [y0, y1) of a map `width`
   * tiles wide; returns this.
   */
  configure(inner: RegionSpace, width: number, x0: number, y0: number, x1: number, y1: number): this {
    this.inner = inner;
    this.width = width;
    this.x0 = x0;
    this.y0 = y0;
    const bw = x1 - x0, bh = y1 - y0, n = bw * bh;
    this.boxWidth = bw;
    this.stateCount = n;
    if (n > this.moves.length) {
      this.moves = new Uint8Array(n);
      this.stepCost = new Float64Array(n * 8);
      this.open = new Uint8Array(n);
      this.straight = new Float64Array(n);
      this.diagonalCost = new Float64Array(n);
    }
    for (let d = 0; d < 8; d++) this.offset[d] = DY[d] * bw + DX[d];
    // The moves computed directly, as GridSpace.expand then RegionSpace.expand make them (a probe through both per
    // tile was a quarter of a big map's block preparation): a straight move onto an open tile, a diagonal one
    // onto an open tile past two open orthogonal neighbours (no corner cutting), kept when the target is of the
    // region. Only moves within the box are kept, and a diagonal's orthogonal neighbours are in the box whenever
    // its target is. Per tile: bit 0 open, bit 1 of the region (test/search/sectorSpace.test.ts compares every
    // cell with the probe).
    const grid = inner.gridSpace;
    const open = this.open, straight = this.straight, diagonalCost = this.diagonalCost;
    for (let y = 0, l = 0; y < bh; y++) {
      for (let x = 0, t = (y0 + y) * width + x0; x < bw; x++, l++, t++) {
        open[l] = (grid.isOpen(t) ? 1 : 0) | (inner.holds(t) ? 2 : 0);
        // A move's cost is its target's (a tile of the region), once per tile rather than per move onto it.
        if (open[l] === 3) {
          straight[l] = grid.straightCost(t);
          diagonalCost[l] = grid.diagonalCost(t);
        }
      }
    }
    const diagonal = inner.diagonal;
    const moves = this.moves, stepCost = this.stepCost;
    for (let y = 0, l = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++, l++) {
        // The box's other regions' tiles are never reached from this one: no moves.
        if ((open[l] & 2) === 0) {
          moves[l] = 0;
          continue;
        }
        const e = x + 1 < bw ? open[l + 1] : 0;
        const s = y + 1 < bh ? open[l + bw] : 0;
        const w = x > 0 ? open[l - 1] : 0;
        const nn = y > 0 ? open[l - bw] : 0;
        let mask = (e === 3 ? 1 << 0 : 0) | (s === 3 ? 1 << 2 : 0) | (w === 3 ? 1 << 4 : 0) |
          (nn === 3 ? 1 << 6 : 0);
        if (diagonal) {
          if ((e & s & 1) !== 0 && open[l + bw + 1] === 3) mask |= 1 << 1;
          if ((w & s & 1) !== 0 && open[l + bw - 1] === 3) mask |= 1 << 3;
          if ((w & nn & 1) !== 0 && open[l - bw - 1] === 3) mask |= 1 << 5;
          if ((e & nn & 1) !== 0 && open[l - bw + 1] === 3) mask |= 1 << 7;
        }
        moves[l] = mask;
        for (let m = mask; m !== 0; m &= m - 1) {
          const d = 31 - Math.clz32(m & -m);
          const t = l + this.offset[d];
          stepCost[l * 8 + d] = (d & 1) === 0 ? straight[t] : diagonalCost[t];
        }
      }
    }
    return this;
  }

  /**
   * The moves of the configured box's tile `state` probed through the wrapped space (RegionSpace.expand over
   * GridSpace.expand) as a direction mask, their costs written to `costs` by direction: what {@link configure}
   * computes directly, for tests to compare with {@link moveTables}.
   */
  probeMoves(state: number, costs: Float64Array): number {
    const inner = this.inner!, width = this.width;
    const tile = this.tileOf(state);
    if (!inner.holds(tile)) return 0;
    const ty = (tile / width) | 0, tx = tile - ty * width;
    // Without a parent the wrapped space lists its moves in direction order 0..7.
    const n = inner.expand(tile, this.probe, -1);
    let mask = 0;
    for (let i = 0; i < n; i++) {
      const t = this.probe.ids[i];
      const y = (t / width) | 0;
      const d = DIRECTION_OF[(t - y * width - tx + 1) * 3 + (y - ty + 1)];
      mask |= 1 << d;
      costs[d] = this.probe.costs[i];
    }
    return mask;
  }

  /**
   * The configured box's moves, for a search that needs only distances (abstractGraphBlocks.ts): per local cell
   * its direction mask, per cell and direction (cell * 8 + d) the step cost, per direction the local id offset;
   * the box's width (local state = row * width + column).
   */
  moveTables(): { moves: Uint8Array; stepCost: Float64Array; offset: Int32Array; width: number } {
    return { moves: this.moves, stepCost: this.stepCost, offset: this.offset, width: this.boxWidth };
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

  /** The wrapped space's moves, renumbered: from the parent's direction round, as GridSpace orders them. */
  expand(state: number, out: Successors, parent: number): number {
    const mask = this.moves[state];
    let first = 0;
    if (parent >= 0) {
      const bw = this.boxWidth;
      const y = (state / bw) | 0, py = (parent / bw) | 0;
      first = DIRECTION_OF[(state - y * bw - (parent - py * bw) + 1) * 3 + (y - py + 1)];
    }
    const ids = out.ids;
    const costs = out.costs;
    const offset = this.offset;
    const base = state * 8;
    let count = 0;
    for (let k = 0; k < 8; k++) {
      const d = (first + k) & 7;
      if ((mask & (1 << d)) === 0) continue;
      ids[count] = state + offset[d];
      costs[count] = this.stepCost[base + d];
      count++;
    }
    return count;
  }

  /** The wrapped space's heuristic. */
  heuristic(state: number): number {
    return this.inner!.heuristic(this.tileOf(state));
  }

  /** The wrapped space's goal test. */
  isGoal(state: number): boolean {
    return this.inner!.isGoal(this.tileOf(state));
  }

  /**
   * Exhaustive search from local state `start` (the space configured for a region without a goal: zero
   * heuristic) into `ws`, leaving there exactly what `astar(this, ws, [start], unlimited())` leaves (g, parent,
   * stamps of the new generation): astar's flat loop statement for statement with f = g and {@link expand}
   * inlined. The distance blocks of an abstract graph run one per entrance node (hundreds of thousands at
   * 8192^2, most of a big map's preparation); through astar each paid its megamorphic calls to expand,
   * heuristic and isGoal and a pass through the successor buffer. Returns the expansions.
   *
   * With `targets` (the first `targetCount` local states, all reachable) it stops once every one is closed:
   * their g is final then (f = g, so closing order is distance order), which is all a distance block reads;
   * the rest of the region is not searched (its tree, when a walk needs it, comes from a whole search).
   */
  exhaustiveFrom(
    ws: SearchWorkspace,
    start: number,
    targets: Int32Array | null = null,
    targetCount = 0,
  ): number {
    ws.ensure(this.stateCount, this.maxSuccessors);
    const gen = ws.nextGeneration();
    if (ws.paged) {
      throw new RangeError(`SectorSpace.exhaustiveFrom: ${this.stateCount} states need a paged workspace`);
    }
    const g = ws.g;
    const f = ws.f;
    const parent = ws.parent;
    const stamp = ws.stamp;
    const closed = ws.closed;
    const heap = ws.heap;
    const moves = this.moves;
    const stepCost = this.stepCost;
    const offset = this.offset;
    const bw = this.boxWidth;
    heap.clear();
    // Targets are marked with this search's generation; -1: no early stop.
    let remaining = -1;
    const mark = this.targetMark.length >= this.stateCount
      ? this.targetMark
      : (this.targetMark = new Uint32Array(this.stateCount));
    if (targets !== null) {
      remaining = 0;
      for (let i = 0; i < targetCount; i++) {
        if (mark[targets[i]] !== gen) {
          mark[targets[i]] = gen;
          remaining++;
        }
      }
      if (remaining === 0) return 0;
    }
    stamp[start] = gen;
    g[start] = 0;
    f[start] = 0;
    parent[start] = -1;
    heap.push(start, 0, 0);
    let expansions = 0;
    // astar's hold-back of the best new successor (see there), with f = g.
    let next = -1;
    while (next >= 0 || heap.size > 0) {
      let s: number;
      if (next >= 0) {
        s = next;
        next = -1;
      } else {
        s = heap.pop();
      }
      closed[s] = gen;
      expansions++;
      if (remaining > 0 && mark[s] === gen && --remaining === 0) break;
      const gs = g[s];
      // this.expand inlined: the same moves in the same order, from the parent's direction round.
      const mask = moves[s];
      let first = 0;
      const ps = parent[s];
      if (ps >= 0) {
        const y = (s / bw) | 0, py = (ps / bw) | 0;
        first = DIRECTION_OF[(s - y * bw - (ps - py * bw) + 1) * 3 + (y - py + 1)];
      }
      const base = s * 8;
      let cand = -1;
      let candG = 0;
      for (let k = 0; k < 8; k++) {
        const d = (first + k) & 7;
        if ((mask & (1 << d)) === 0) continue;
        const t = s + offset[d];
        const ng = gs + stepCost[base + d];
        if (stamp[t] !== gen) {
          stamp[t] = gen;
          g[t] = ng;
          f[t] = ng;
          parent[t] = s;
          if (cand < 0) {
            cand = t;
            candG = ng;
          } else if (ng < candG) {
            // astar: ft < candF || (ft === candF && ng > candG); with f = g the second never holds.
            heap.push(cand, candG, candG);
            cand = t;
            candG = ng;
          } else {
            heap.push(t, ng, ng);
          }
        } else if (ng < g[t]) {
          f[t] = ng;
          g[t] = ng;
          parent[t] = s;
          if (t === cand) {
            candG = ng;
          } else if (closed[t] === gen) {
            closed[t] = 0;
            heap.push(t, ng, ng);
          } else {
            heap.decrease(t, ng, ng);
          }
        }
      }
      if (cand >= 0) {
        const keys = heap.keys;
        if (heap.size === 0 || candG < keys[0] || (candG === keys[0] && candG >= keys[1])) {
          ws.heapPos[cand] = -1;
          next = cand;
        } else {
          heap.push(cand, candG, candG);
        }
      }
    }
    return expansions;
  }
}
