/**
 * The article's Directional A* as a {@link SearchSpace} for the one A* core: a state is a tile, a discrete
 * heading and (for reversing units) the direction of the last motion. A transition to a child tile (an offset of
 * the direction table) with any end heading is the shortest curve between the two tile-center poses, legal only
 * if every cell of its hit-check table entry is open — no trigonometry in the loop.
 *
 * The parts, each in its own module (as Nav2 Smac splits node, collision checker, heuristics and analytic
 * expansion):
 * - src/search/directionalSetup.ts: what a query asks;
 * - src/search/directionalRaster.ts: the padded window raster the cells are tested on, and the state layout;
 * - src/search/directionalCost.ts: the transition costs;
 * - src/search/directionalHeuristic.ts: the admissible heuristic;
 * - src/search/directionalEndpoints.ts: the exact start pose and the analytic expansion to the exact goal.
 *
 * @module
 */
import { angleDistance } from "../geometry/angle.ts";
import { appendChained } from "../geometry/segment.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { SearchSpace, SearchWorkspace, Successors } from "./astar.ts";
import { headingAngle } from "./directionTable.ts";
import {
  type CostTerms,
  costTermsOf,
  piecesOf,
  type TerrainPieces,
  terrainTransitionCost,
  uniformCosts,
} from "./directionalCost.ts";
import { DirectionalEndpoints } from "./directionalEndpoints.ts";
import { DirectionalHeuristic } from "./directionalHeuristic.ts";
import { WindowRaster } from "./directionalRaster.ts";
import { type DirectionalSetup, PRESMOOTH_BACKTRACK } from "./directionalSetup.ts";
import {
  IS_REEDS_SHEPP,
  LAST_REVERSE,
  transitionCurve,
  VARIANT_DUBINS,
  VARIANT_REEDS_SHEPP,
} from "./hitCheckTable.ts";

const EMPTY_STAMPS = new Uint32Array(1 << 0);
const EMPTY_G = new Float64Array(1);

/** The directional search space (configure per query, reuse across queries). */
export class DirectionalSpace implements SearchSpace {
  /** Number of states (window tiles * headings * directions + start + goal). */
  stateCount = 0;
  /** Largest successor count of any state. */
  maxSuccessors = 1;
  /** The exact-start state id. */
  startState = -1;
  /** The exact-goal state id. */
  goalState = -1;
  /** The node state the start pose snaps to (a tile center with a table heading), or -1. */
  snappedStart = -1;
  /** Pre-smoothing: the largest path index of an expanded node, and that node (the failure point). */
  farthestIndex = -1;
  /** See {@link farthestIndex}. */
  farthestState = -1;

  private setup!: DirectionalSetup;
  private raster = new WindowRaster();
  private h = new DirectionalHeuristic();
  private ends = new DirectionalEndpoints();
  /**
   * The workspace of the search running on this space (see {@link useWorkspace}): a successor already reached
   * at no more cost is skipped before its cells are tested, since the A* core would ignore it anyway.
   */
  private ws: SearchWorkspace | null = null;
  /** The cost terms of the table under this query's penalties (cached per table and penalties). */
  private terms!: CostTerms;
  /** Per transition: child state id minus (origin local tile * headings * directions). */
  private idDelta = new Int32Array(0);
  /** What {@link idDelta} was computed for (the window offsets are cached per width: a corridor's windows share them). */
  private idDeltaOf: { local: Int32Array | null; headings: number; directions: number; ends: unknown } = {
    local: null,
    headings: 0,
    directions: 0,
    ends: null,
  };
  /**
   * When every open window tile has the same cost: per transition, the fixed-point edge cost from a state whose
   * last motion was forward (uniformCost0) or reverse (uniformCost1); else unused, and costs are computed per
   * successor.
   */
  private uniformCost0: Float64Array = new Float64Array(0);
  /** See {@link uniformCost0}. */
  private uniformCost1: Float64Array = new Float64Array(0);
  private costIsUniform = false;
  /** The query's heuristic weight (DirectionalSetup.heuristicWeight; 1: admissible). */
  private weight = 1;
  /**
   * Non-uniform windows: per transition, a lower bound of its fixed-point edge cost (every tile at the layer's
   * cheapest cost, less one fixed-point unit for rounding), from a forward (0) or reverse (1) state. The
   * search loop tests a successor against it first and integrates the terrain only for successors that pass
   * every cheap test (most do not: already reached for less, or blocked).
   */
  private lowCost0: Float64Array = new Float64Array(0);
  /** See {@link lowCost0}. */
  private lowCost1: Float64Array = new Float64Array(0);
  /** Non-uniform windows: per terrain piece, its local tile offset for the raster's stride. */
  private pieceLocal = new Int32Array(0);
  private pieceLocalOf: TerrainPieces | null = null;
  private pieceLocalStride = -1;

  /** Raster blocks filled by this query (for statistics and tests: the work follows the search). */
  get filledBlocks(): number {
    return this.raster.filledBlocks;
  }

  /** Analytic expansions tried (for statistics). */
  get analyticTries(): number {
    return this.ends.analyticTries;
  }

  /** Prepares a query (allocates only when the window grows). */
  /**
   * Between queries (a worker gone idle): lets go of the window raster's and heuristic's arrays above
   * `keepBytes` each (the next query regrows them). Returns the bytes let go.
   */
  release(keepBytes: number): number {
    return this.raster.release(keepBytes) + this.h.release(keepBytes);
  }

  configure(setup: DirectionalSetup): this {
    this.setup = setup;
    const { hit } = setup;
    const raster = this.raster.configure(setup);
    const H = raster.headings;
    const D = raster.directions;
    const area = raster.area;
    this.farthestIndex = -1;
    this.farthestState = -1;
    this.ws = null;
    const n = hit.dx.length;
    this.terms = costTermsOf(hit, setup.reversePenalty, setup.turnPenalty, setup.cuspPenalty);
    const of = this.idDeltaOf;
    if (
      of.local !== raster.transitionLocal || of.headings !== H || of.directions !== D ||
      of.ends !== hit.endHeading
    ) {
      if (this.idDelta.length < n) this.idDelta = new Int32Array(n);
      for (let t = 0; t < n; t++) {
        this.idDelta[t] = (raster.transitionLocal[t] * H + hit.endHeading[t]) * D +
          (D === 2 && (hit.flags[t] & LAST_REVERSE) !== 0 ? 1 : 0);
      }
      this.idDeltaOf = { local: raster.transitionLocal, headings: H, directions: D, ends: hit.endHeading };
    }
    const tc = raster.uniformCost();
    this.costIsUniform = tc !== null;
    if (tc !== null) [this.uniformCost0, this.uniformCost1] = uniformCosts(this.terms, tc);
    else {
      // Terrain differs: each transition is charged the tiles it crosses (its pieces), not its end tile.
      [this.lowCost0, this.lowCost1] = uniformCosts(this.terms, setup.layer.minCost);
      const { pieces } = piecesOf(this.terms, hit, setup.reversePenalty);
      if (this.pieceLocalOf !== pieces || this.pieceLocalStride !== raster.stride) {
        const m = pieces.dx.length;
        if (this.pieceLocal.length < m) this.pieceLocal = new Int32Array(m);
        for (let k = 0; k < m; k++) this.pieceLocal[k] = pieces.dy[k] * raster.stride + pieces.dx[k];
        this.pieceLocalOf = pieces;
        this.pieceLocalStride = raster.stride;
      }
    }
    const N = area * H * D;
    this.startState = N;
    this.goalState = N + 1;
    this.stateCount = N + 2;
    this.h.configure(setup, raster);
    this.weight = setup.heuristicWeight !== undefined && setup.heuristicWeight > 1
      ? setup.heuristicWeight
      : 1;
    const ends = this.ends.configure(setup, raster, this.startState, this.goalState, tc === null);
    this.snappedStart = ends.snappedStart;
    let most = 0;
    for (let h = 0; h < H; h++) most = Math.max(most, hit.transitionStart[h + 1] - hit.transitionStart[h]);
    this.maxSuccessors = Math.max(most, ends.startIds.length) + 1;
    return this;
  }

  /**
   * Lets {@link expand} read the g values of the search that runs on this space next (call after configure,
   * before astar with the same workspace). Optional: without it every successor's cells are tested.
   */
  useWorkspace(ws: SearchWorkspace): void {
    this.ws = ws;
  }

  /** Encodes a node state. */
  stateOf(x: number, y: number, heading: number, reverse: boolean): number {
    return this.raster.stateOf(x, y, heading, reverse);
  }

  /** Decodes a node state into map tile x, y, heading index and last-motion-reverse flag. */
  decode(state: number): { x: number; y: number; heading: number; reverse: boolean } {
    return this.raster.decode(state);
  }

  /** The pose of a state (exact start/goal poses for the two special states). */
  poseOf(state: number, from = -1): Pose {
    return this.ends.poseOf(state, from);
  }

  /** Map tile id of a node state (-1 for the special states). */
  tileOf(state: number): number {
    if (state >= this.startState) return -1;
    const d = this.raster.decode(state);
    return d.y * this.setup.layer.width + d.x;
  }

  /**
   * True if the curve's footprint overlaps no blocked tile (exact sweep of src/geometry/sweep.ts, early exit,
   * no allocation); for road-confined searches, no tile outside the window's road tiles either.
   */
  curveIsOpen(segs: readonly Segment[]): boolean {
    return this.raster.curveIsOpen(segs, this.setup.footprint);
  }

  /** Successors: the table's open transitions, plus the goal by analytic expansion when it is free. */
  expand(state: number, out: Successors, _parent: number): number {
    const ids = out.ids;
    const costs = out.costs;
    let n = 0;
    if (state === this.startState) {
      const startIds = this.ends.startIds;
      const startCosts = this.ends.startCosts;
      for (let i = 0; i < startIds.length; i++) {
        ids[n] = startIds[i];
        costs[n] = startCosts[i];
        n++;
      }
      return this.ends.tryAnalytic(state, out, n, 0);
    }
    const raster = this.raster;
    const H = raster.headings;
    const D = raster.directions;
    const dir = D === 2 ? state & 1 : 0;
    const s = D === 2 ? state >>> 1 : state;
    const h = s % H;
    const lt = (s - h) / H;
    raster.ensureAround(lt);
    const lpi = raster.pathIndex;
    if (lpi !== null) {
      const idx = lpi[lt];
      if (idx > this.farthestIndex) {
        this.farthestIndex = idx;
        this.farthestState = state;
      } else if (idx <= this.farthestIndex - PRESMOOTH_BACKTRACK) return 0;
    }
    const hit = this.setup.hit;
    const tStart = hit.transitionStart;
    const cellStart = hit.cellStart;
    const open = raster.open;
    const nodeOk = raster.nodeOk;
    const cost = raster.cost;
    const tl = raster.transitionLocal;
    const cl = raster.cellLocal;
    const terms = this.terms;
    const reach = raster.reach;
    const fr = raster.freeReach[lt];
    const useRows = raster.useRows;
    const rowStart = raster.rowStart;
    const rowMask = raster.rowMask;
    const rowLocal = raster.rowLocal;
    const rowBits = raster.rowBits;
    const ws = this.ws;
    // Without a workspace, the skip test below never fires (stamps never equal -1). A paged workspace (big
    // spaces) has no flat arrays: its g values are read through gOf (Infinity when not reached).
    const flat = ws !== null && !ws.paged;
    const pagedWs = ws !== null && ws.paged ? ws : null;
    const stamp = flat ? ws.stamp : EMPTY_STAMPS;
    const gen = flat ? ws.generation : -1;
    const g = flat ? ws.g : EMPTY_G;
    const gs = ws !== null ? ws.gOf(state) : 0;
    const idDelta = this.idDelta;
    const idBase = lt * H * D;
    const uniform = this.costIsUniform;
    const uniformCost = dir === 0 ? this.uniformCost0 : this.uniformCost1;
    const lowCost = dir === 0 ? this.lowCost0 : this.lowCost1;
    const pieceLocal = this.pieceLocal;
    for (let t = tStart[h], end = tStart[h + 1]; t < end; t++) {
      const child = lt + tl[t];
      const id = idBase + idDelta[t];
      // (A transition into closed tiles has a meaningless but harmless c: the tests below reject it.)
      // Non-uniform terrain: the lower bound now, the terrain integral only after the cheap tests.
      let c = uniform ? uniformCost[t] : lowCost[t] - 1;
      // Already reached at no more cost: A* would ignore it, so skip the node and cell tests (most successors
      // end here, so this test comes first).
      if (stamp[id] === gen && g[id] <= gs + c) continue;
      if (pagedWs !== null && pagedWs.gOf(id) <= gs + c) continue;
      if (nodeOk[child] === 0) continue;
      if (reach[t] > fr) {
        let free = true;
        if (useRows) {
          for (let k = rowStart[t], ke = rowStart[t + 1]; k < ke; k++) {
            if ((rowBits[lt + rowLocal[k]] & rowMask[k]) !== 0) {
              free = false;
              break;
            }
          }
        } else {
          for (let k = cellStart[t] + 1, ce = cellStart[t + 1]; k < ce; k++) {
            if (open[lt + cl[k]] === 0) {
              free = false;
              break;
            }
          }
        }
        if (!free) continue;
      }
      if (!uniform) {
        c = terrainTransitionCost(terms, t, cost, lt, pieceLocal, dir);
        if (stamp[id] === gen && g[id] <= gs + c) continue;
        if (pagedWs !== null && pagedWs.gOf(id) <= gs + c) continue;
      }
      // A state appears at most once per expansion: the A* core would treat a repeated id as already in its
      // heap while it may still be held back as the next state (heap corruption, history-dependent results).
      // Repeats are adjacent in the table (a Dubins transition, then its Reeds-Shepp variant).
      if (n > 0 && ids[n - 1] === id) {
        if (c < costs[n - 1]) costs[n - 1] = c;
        continue;
      }
      ids[n] = id;
      costs[n] = c;
      n++;
    }
    return this.ends.tryAnalytic(state, out, n, D === 2 ? (dir === 1 ? -1 : 1) : 1);
  }

  /** Admissible estimate of the cost to the goal (see {@link DirectionalHeuristic.ofNode}). */
  heuristic(state: number): number {
    if (state === this.goalState) return 0;
    if (state === this.startState) return this.h.ofStart();
    const w = this.weight;
    return w === 1 ? this.h.ofNode(state) : Math.floor(this.h.ofNode(state) * w);
  }

  /** Goal test: the goal state, or a tile-center node within tolerance (and heading tolerance). */
  isGoal(state: number): boolean {
    if (state === this.goalState) return true;
    if (state === this.startState) return this.ends.startIsGoal;
    const g = this.setup.goal;
    const d = this.raster.decode(state);
    if (Math.hypot(d.x + 0.5 - g.x, d.y + 0.5 - g.y) > g.tolerance) return false;
    return g.heading === undefined ||
      angleDistance(headingAngle(d.heading, this.raster.headings), g.heading) <= g.headingTolerance;
  }

  /**
   * The curve the search used between two consecutive states of a path, chained from `from` (the previous
   * segment's end pose) so joins are exact: the pieces of the curve between the exact state poses are
   * re-emitted from `from`.
   */
  edgeSegments(a: number, b: number, from: Pose): Segment[] {
    const s = this.setup;
    let variant = VARIANT_DUBINS;
    if (b === this.goalState) variant = s.reverse ? VARIANT_REEDS_SHEPP : VARIANT_DUBINS;
    else if (a === this.startState) variant = this.ends.startVariantOf(b);
    else variant = this.tableVariant(a, b);
    const exact = transitionCurve(this.poseOf(a), this.poseOf(b, a), s.turningRadius, variant);
    const out: Segment[] = [];
    appendChained(out, from, exact);
    return out;
  }

  /** The variant of the cheapest open table transition from a to b (what the search took). */
  private tableVariant(a: number, b: number): number {
    const hit = this.setup.hit;
    const raster = this.raster;
    const H = raster.headings;
    const D = raster.directions;
    const sa = D === 2 ? a >>> 1 : a;
    const ha = sa % H;
    const lta = (sa - ha) / H;
    const dirA = D === 2 ? a & 1 : 0;
    const sb = D === 2 ? b >>> 1 : b;
    const hb = sb % H;
    const ltb = (sb - hb) / H;
    const lastB = D === 2 ? b & 1 : 0;
    let bestCost = Infinity;
    let variant = VARIANT_DUBINS;
    for (let t = hit.transitionStart[ha]; t < hit.transitionStart[ha + 1]; t++) {
      if (lta + raster.transitionLocal[t] !== ltb || hit.endHeading[t] !== hb) continue;
      const f = hit.flags[t];
      if (D === 2 && ((f & LAST_REVERSE) !== 0 ? 1 : 0) !== lastB) continue;
      if (raster.open[ltb] === 0 || !raster.transitionFree(lta, t)) continue;
      const c = this.costIsUniform
        ? (dirA === 0 ? this.uniformCost0 : this.uniformCost1)[t]
        : terrainTransitionCost(this.terms, t, raster.cost, lta, this.pieceLocal, dirA);
      if (c < bestCost) {
        bestCost = c;
        variant = (f & IS_REEDS_SHEPP) !== 0 ? VARIANT_REEDS_SHEPP : VARIANT_DUBINS;
      }
    }
    return variant;
  }
}
