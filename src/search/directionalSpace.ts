/**
 * The article's Directional A* as a {@link SearchSpace} for the one A* core: a state is a tile, a discrete
 * heading and (for reversing units) the direction of the last motion. A transition to a child tile (an offset of
 * the direction table) with any end heading is the shortest curve between the two tile-center poses, legal only
 * if every cell of its hit-check table entry is open — no trigonometry in the loop.
 *
 * The search runs over a window of the map padded by the table's reach: the padding is marked blocked, so no
 * transition can leave the window and no bounds test is needed. Cells are open when passable (and on a road
 * when the search is confined to roads).
 *
 * Two extra states: the exact start pose (off-center, any heading; its successors are curves computed on the
 * fly, as the article prescribes for the first node) and the exact goal pose, reached by analytic expansion (as
 * in Hybrid A*: every few expansions, and at every expansion near the goal, the direct shortest curve to the
 * goal pose is tried and taken when its sweep is open).
 *
 * Costs (fixed point, {@link COST_SCALE}): (forward length + reverse length * reversePenalty) * the child
 * tile's cost + turnPenalty per radian + cuspPenalty per change of direction (inside a curve or between two).
 *
 * Heuristic: max(curve bound, grid bound, geodesic bound), plus a reverse extra for states whose last motion
 * was reverse; all admissible (documented at {@link heuristic}).
 *
 * @module
 */
import { angleDistance } from "../geometry/angle.ts";
import { dubinsLengthCoords } from "../geometry/dubins.ts";
import { reedsSheppLengthCoords } from "../geometry/reedsShepp.ts";
import { arcSegment, lineSegment } from "../geometry/segment.ts";
import { footprintHitsBlocked, segmentHitsBlocked } from "../geometry/sweep.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { Footprint } from "../units/footprint.ts";
import type { PassLayer } from "../maps/grid.ts";
import { COST_SCALE, type SearchSpace, type SearchWorkspace, type Successors } from "./astar.ts";
import { directionTable, headingAngle, nearestHeading } from "./directionTable.ts";
import { GeodesicBound } from "./geodesicBound.ts";
import { curveLowerBound, type HeuristicTable } from "./heuristicTable.ts";
import {
  FIRST_REVERSE,
  type HitCheckTable,
  IS_REEDS_SHEPP,
  LAST_REVERSE,
  measureCurve,
  transitionCurve,
  VARIANT_DUBINS,
  VARIANT_REEDS_SHEPP,
} from "./hitCheckTable.ts";

/** The goal of a directional search. */
export interface DirectionalGoal {
  /** Goal point x (tiles). */
  x: number;
  /** Goal point y (tiles). */
  y: number;
  /** Required final heading, if any. */
  heading?: number;
  /** Accepted distance from the goal point for tile-center nodes. */
  tolerance: number;
  /** Accepted heading error (when a heading is given). */
  headingTolerance: number;
}

/** A window of map tiles [x0, x1) x [y0, y1). */
export interface TileWindow {
  /** First column. */
  x0: number;
  /** First row. */
  y0: number;
  /** One past the last column. */
  x1: number;
  /** One past the last row. */
  y1: number;
}

/** Everything a directional search needs. */
export interface DirectionalSetup {
  /** The map layer. */
  layer: PassLayer;
  /** Hit-check table of the unit's profile. */
  hit: HitCheckTable;
  /** Heuristic table of the unit's profile. */
  heur: HeuristicTable;
  /** The window the search may use. */
  window: TileWindow;
  /** Only road tiles are open. */
  roadsOnly: boolean;
  /** Footprint (for the on-the-fly start and analytic curves). */
  footprint: Footprint;
  /** Turning radius of the curves. */
  turningRadius: number;
  /** Reverse motion allowed (Reeds-Shepp curves). */
  reverse: boolean;
  /** Cost multiplier of reverse distance (>= 1). */
  reversePenalty: number;
  /** Cost per radian turned. */
  turnPenalty: number;
  /** Cost per change of direction. */
  cuspPenalty: number;
  /** The exact start pose. */
  start: Pose;
  /** The goal. */
  goal: DirectionalGoal;
  /**
   * Optional obstacle-aware lower bound per map tile (fixed point; Infinity = goal unreachable from there,
   * negative = unknown).
   */
  gridBound: Float64Array | null;
  /** Analytic expansion every this many expansions (0: never). */
  analyticInterval: number;
  /**
   * Optional per-map-tile mask: node states only on tiles marked 1 (the pre-smoothing pass keeps nodes on the
   * grid path; sweeps may still cross any open tile).
   */
  nodeMask?: Uint8Array | null;
  /**
   * Optional per-map-tile index on a grid path (-1 off the path), for the pre-smoothing pass: a node more than
   * {@link PRESMOOTH_BACKTRACK} points behind the farthest point reached is not expanded (the article's
   * "searches back six or more points: fail"), and the farthest node is recorded as the failure point.
   */
  pathIndex?: Int32Array | null;
}

/** The pre-smoothing pass gives up on nodes this many path points behind the farthest one reached. */
export const PRESMOOTH_BACKTRACK = 6;

interface StrideCache {
  stride: number;
  transitionLocal: Int32Array;
  cellLocal: Int32Array;
  /** Per transition: the largest |dx| or |dy| of its cells (Chebyshev reach). */
  reach: Uint8Array;
  /** Per row entry of {@link RowMasks}: its row offset dy * stride. */
  rowLocal: Int32Array;
}

/**
 * A transition's cells as one bitmask per row it touches: bit j of row dy is the cell (j - maxReach, dy). With a
 * per-tile word of the blocked flags of the 2 * maxReach + 1 tiles centered on it (DirectionalSpace.rowBits), a
 * transition is tested with a few AND operations instead of a scan of ~24 cells. Only when 2 * maxReach + 1 <= 31.
 */
interface RowMasks {
  /** Row entries per transition, CSR offsets (length transitions + 1). */
  rowStart: Uint32Array;
  /** Row dy of each entry. */
  rowDy: Int8Array;
  /** Cell bits of each entry. */
  rowMask: Int32Array;
}

/** Goal slack per goal place in its tile and curve family (see prepareGoal). */
const slackCache = new Map<string, number>();

const strideCaches = new WeakMap<HitCheckTable, Map<number, StrideCache>>();
const rowMaskCache = new WeakMap<HitCheckTable, RowMasks | null>();

const EMPTY_STAMPS = new Uint32Array(1 << 0);
const EMPTY_G = new Float64Array(1);

/** Largest maxReach the row bitmasks support (2 * 15 + 1 bits fit a signed 32-bit word). */
const ROW_MASK_REACH = 15;

function rowMasksOf(hit: HitCheckTable): RowMasks | null {
  if (rowMaskCache.has(hit)) return rowMaskCache.get(hit)!;
  const R = hit.maxReach;
  let out: RowMasks | null = null;
  if (R <= ROW_MASK_REACH) {
    const n = hit.dx.length;
    const cells = hit.cells;
    const rowStart = new Uint32Array(n + 1);
    const dys: number[] = [];
    const masks: number[] = [];
    const perRow = new Int32Array(2 * R + 1);
    for (let t = 0; t < n; t++) {
      perRow.fill(0);
      for (let c = hit.cellStart[t]; c < hit.cellStart[t + 1]; c++) {
        perRow[cells[2 * c + 1] + R] |= 1 << (cells[2 * c] + R);
      }
      rowStart[t] = dys.length;
      // The destination row first: it holds the most likely blocked cell.
      const first = hit.dy[t] + R;
      if (perRow[first] !== 0) {
        dys.push(first - R);
        masks.push(perRow[first]);
      }
      for (let r = 0; r < perRow.length; r++) {
        if (r === first || perRow[r] === 0) continue;
        dys.push(r - R);
        masks.push(perRow[r]);
      }
    }
    rowStart[n] = dys.length;
    out = { rowStart, rowDy: Int8Array.from(dys), rowMask: Int32Array.from(masks) };
  }
  rowMaskCache.set(hit, out);
  return out;
}

const reachCache = new WeakMap<HitCheckTable, Uint8Array>();

/** Per transition: the largest |dx| or |dy| of its cells (stride-independent, cached per table). */
function reachOf(hit: HitCheckTable): Uint8Array {
  const cached = reachCache.get(hit);
  if (cached) return cached;
  const n = hit.dx.length;
  const cells = hit.cells;
  const reach = new Uint8Array(n);
  for (let t = 0; t < n; t++) {
    let m = 0;
    for (let c = hit.cellStart[t]; c < hit.cellStart[t + 1]; c++) {
      m = Math.max(m, Math.abs(cells[2 * c]), Math.abs(cells[2 * c + 1]));
    }
    reach[t] = m;
  }
  reachCache.set(hit, reach);
  return reach;
}

function localOffsets(hit: HitCheckTable, stride: number): StrideCache {
  let byStride = strideCaches.get(hit);
  if (!byStride) {
    byStride = new Map();
    strideCaches.set(hit, byStride);
  }
  const cached = byStride.get(stride);
  if (cached) return cached;
  const n = hit.dx.length;
  const transitionLocal = new Int32Array(n);
  for (let t = 0; t < n; t++) transitionLocal[t] = hit.dy[t] * stride + hit.dx[t];
  const rows = rowMasksOf(hit);
  // Cell offsets only when the row bitmasks cannot be used (they are ~12 times more entries).
  const cells = hit.cells;
  const cellLocal = new Int32Array(rows ? 0 : cells.length / 2);
  for (let c = 0; c < cellLocal.length; c++) cellLocal[c] = cells[2 * c + 1] * stride + cells[2 * c];
  const rowLocal = new Int32Array(rows ? rows.rowDy.length : 0);
  for (let k = 0; k < rowLocal.length; k++) rowLocal[k] = rows!.rowDy[k] * stride;
  const out = { stride, transitionLocal, cellLocal, reach: reachOf(hit), rowLocal };
  // A few window widths recur (one per query shape); keep the cache small.
  if (byStride.size > 32) byStride.clear();
  byStride.set(stride, out);
  return out;
}

/**
 * Per transition of a table under given penalties: forward + reverse * reversePenalty, turn * turnPenalty +
 * cusps * cuspPenalty, and the fixed-point edge costs by tile cost for uniform windows (see prepareUniformCost).
 */
interface CostTerms {
  lengthTerm: Float64Array;
  penaltyTerm: Float64Array;
  /** Tile cost -> [costs from a forward state, costs from a reverse state]. */
  uniform: Map<number, [Float64Array, Float64Array]>;
}

const costTermCache = new WeakMap<HitCheckTable, Map<string, CostTerms>>();

/** The cost terms of a table under penalties (computed once per table and penalties, a few kept). */
function costTermsOf(
  hit: HitCheckTable,
  reversePenalty: number,
  turnPenalty: number,
  cuspPenalty: number,
): CostTerms {
  let byPenalty = costTermCache.get(hit);
  if (!byPenalty) {
    byPenalty = new Map();
    costTermCache.set(hit, byPenalty);
  }
  const key = `${reversePenalty}|${turnPenalty}|${cuspPenalty}`;
  const cached = byPenalty.get(key);
  if (cached) return cached;
  const n = hit.dx.length;
  const lengthTerm = new Float64Array(n);
  const penaltyTerm = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    lengthTerm[t] = hit.forwardLength[t] + hit.reverseLength[t] * reversePenalty;
    penaltyTerm[t] = hit.turn[t] * turnPenalty + hit.cusps[t] * cuspPenalty;
  }
  const out: CostTerms = { lengthTerm, penaltyTerm, uniform: new Map() };
  if (byPenalty.size >= 16) byPenalty.clear();
  byPenalty.set(key, out);
  return out;
}

/** The radius of the largest disc centered on the pose inside the footprint (a zero side takes 2 * radius). */
function inscribedRadius(f: Footprint): number {
  if (f.width === 0 && f.length === 0) return f.radius;
  const w = f.width > 0 ? f.width : 2 * f.radius;
  const l = f.length > 0 ? f.length : 2 * f.radius;
  return Math.max(0, Math.min(w, l) / 2);
}

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
  /** Analytic expansions tried (for statistics). */
  analyticTries = 0;

  private setup!: DirectionalSetup;
  private headings = 8;
  private directions = 1;
  private pad = 0;
  private stride = 0;
  private rows = 0;
  private open = new Uint8Array(0);
  private nodeOk = new Uint8Array(0);
  private cost = new Float32Array(0);
  private bound = new Float64Array(0);
  private transitionLocal: Int32Array = new Int32Array(0);
  private cellLocal: Int32Array = new Int32Array(0);
  private reach: Uint8Array = new Uint8Array(0);
  /** Per local tile: the radius of the largest all-open square centered there (0 when the tile is closed). */
  private freeReach = new Uint8Array(0);
  /** Per local tile: bit j set when tile (x + j - maxReach, y) is closed (see {@link RowMasks}). */
  private rowBits = new Int32Array(0);
  private rowStart: Uint32Array = new Uint32Array(0);
  private rowMask: Int32Array = new Int32Array(0);
  private rowLocal: Int32Array = new Int32Array(0);
  /** The table's row bitmasks exist (else transitions are tested cell by cell). */
  private useRows = false;
  /**
   * The workspace of the search running on this space (see {@link useWorkspace}): a successor already reached
   * at no more cost is skipped before its cells are tested, since the A* core would ignore it anyway.
   */
  private ws: SearchWorkspace | null = null;
  /** The cost terms of the table under this query's penalties (cached per table and penalties). */
  private terms: CostTerms = {
    lengthTerm: new Float64Array(0),
    penaltyTerm: new Float64Array(0),
    uniform: new Map(),
  };
  private lengthTerm: Float64Array = new Float64Array(0);
  /** Per transition: child state id minus (origin local tile * headings * directions). */
  private idDelta = new Int32Array(0);
  /**
   * When every open window tile has the same cost: per transition, the fixed-point edge cost from a state whose
   * last motion was forward (uniformCost0) or reverse (uniformCost1); else unused, and costs are computed per
   * successor.
   */
  private uniformCost0: Float64Array = new Float64Array(0);
  /** See {@link uniformCost0}. */
  private uniformCost1: Float64Array = new Float64Array(0);
  private costIsUniform = false;
  private penaltyTerm: Float64Array = new Float64Array(0);
  private expansions = 0;
  private startIds = new Int32Array(0);
  private startCosts = new Float64Array(0);
  private startVariant = new Map<number, number>();
  private startIsGoal = false;
  private minCostScale = COST_SCALE;
  /** The geodesic length bound (see src/search/geodesicBound.ts). */
  private geo = new GeodesicBound();
  /** Per local tile: the heading-independent part of the heuristic (fixed point); -1 until evaluated. */
  private tileH = new Float64Array(0);
  /** Per local tile: 1 when the heuristic table applies there (near the goal), set with {@link tileH}. */
  private tileNear = new Uint8Array(0);
  /** reversePenalty - 1 (see {@link heuristic}). */
  private reverseExtra = 0;
  /** The cusp penalty in fixed point, floored. */
  private cuspFixed = 0;
  // Goal bookkeeping for the heuristic.
  private goalTileX = 0;
  private goalTileY = 0;
  private goalTileHeading = -1;
  private goalSlack = 0;
  private goalNodes: number[] = [];
  private goalHeadingMask = 0;
  private goalNodeCap = false;
  private nearDistance = 0;
  /** The layer exact curves are swept against (the map, or a road-only view of the window). */
  private exactLayer!: PassLayer;
  /** Map-sized open mask for road-confined searches (1 = open road tile inside the window). */
  private roadOpen = new Uint8Array(0);
  /** All-zero clearance for the road view (no stretch is certified free by the map's clearance). */
  private roadClearance = new Float32Array(0);
  /** The window the road mask currently marks (cleared lazily on the next road query). */
  private roadWindow: TileWindow | null = null;
  /** Pre-smoothing: path index per local tile (-1 off the path), or null. */
  private localPathIndex: Int32Array | null = null;
  /** Pre-smoothing: the largest path index of an expanded node, and that node (the failure point). */
  farthestIndex = -1;
  /** See {@link farthestIndex}. */
  farthestState = -1;
  /** The node state the start pose snaps to (a tile center with a table heading), or -1. */
  snappedStart = -1;

  /** Prepares a query (allocates only when the window grows). */
  configure(setup: DirectionalSetup): this {
    this.setup = setup;
    const { hit, layer, window: w } = setup;
    const H = hit.profile.headings;
    this.headings = H;
    this.directions = setup.reverse && hit.profile.reverse ? 2 : 1;
    this.pad = hit.maxReach + 1;
    this.stride = w.x1 - w.x0 + 2 * this.pad;
    this.rows = w.y1 - w.y0 + 2 * this.pad;
    const area = this.stride * this.rows;
    if (this.open.length < area) {
      this.open = new Uint8Array(area);
      this.cost = new Float32Array(area);
      this.bound = new Float64Array(area);
      this.nodeOk = new Uint8Array(area);
      this.freeReach = new Uint8Array(area);
      this.rowBits = new Int32Array(area);
    }
    this.open.fill(0, 0, area);
    this.nodeOk.fill(0, 0, area);
    this.localPathIndex = null;
    if (setup.pathIndex) {
      this.localPathIndex = new Int32Array(area).fill(-1);
    }
    this.farthestIndex = -1;
    this.farthestState = -1;
    const tileCost = layer.tileCost;
    const road = layer.road;
    for (let y = w.y0; y < w.y1; y++) {
      for (let x = w.x0; x < w.x1; x++) {
        const t = y * layer.width + x;
        const lt = this.local(x, y);
        const c = tileCost[t];
        this.open[lt] = c > 0 && (!setup.roadsOnly || road[t] === 1) ? 1 : 0;
        this.nodeOk[lt] = this.open[lt] === 1 && (!setup.nodeMask || setup.nodeMask[t] === 1) ? 1 : 0;
        this.cost[lt] = c;
        if (this.localPathIndex) this.localPathIndex[lt] = setup.pathIndex![t];
        const gb = setup.gridBound ? setup.gridBound[t] : -1;
        this.bound[lt] = gb >= 0 ? gb : 0;
        // No node where the goal is out of reach: one test fewer per successor.
        if (gb === Infinity) this.nodeOk[lt] = 0;
      }
    }
    this.exactLayer = setup.roadsOnly ? this.roadLayer(layer, w) : layer;
    const lo = localOffsets(hit, this.stride);
    this.transitionLocal = lo.transitionLocal;
    this.cellLocal = lo.cellLocal;
    this.reach = lo.reach;
    this.computeFreeReach(area);
    const rows = rowMasksOf(hit);
    this.useRows = rows !== null;
    if (rows) {
      this.rowStart = rows.rowStart;
      this.rowMask = rows.rowMask;
      this.rowLocal = lo.rowLocal;
      this.computeRowBits(hit.maxReach);
    }
    this.ws = null;
    const n = hit.dx.length;
    this.terms = costTermsOf(hit, setup.reversePenalty, setup.turnPenalty, setup.cuspPenalty);
    this.lengthTerm = this.terms.lengthTerm;
    this.penaltyTerm = this.terms.penaltyTerm;
    if (this.idDelta.length < n) this.idDelta = new Int32Array(n);
    const D = this.directions;
    for (let t = 0; t < n; t++) {
      this.idDelta[t] = (this.transitionLocal[t] * H + hit.endHeading[t]) * D +
        (D === 2 && (hit.flags[t] & LAST_REVERSE) !== 0 ? 1 : 0);
    }
    this.prepareUniformCost(area, n);
    const N = area * H * this.directions;
    this.startState = N;
    this.goalState = N + 1;
    this.stateCount = N + 2;
    this.expansions = 0;
    this.analyticTries = 0;
    this.minCostScale = layer.minCost * COST_SCALE;
    this.prepareGoal();
    this.prepareGeodesic(area);
    this.snappedStart = this.snapStart();
    if (this.snappedStart >= 0) {
      this.startIds = new Int32Array(0);
      this.startCosts = new Float64Array(0);
    } else this.prepareStart();
    let most = 0;
    for (let h = 0; h < H; h++) most = Math.max(most, hit.transitionStart[h + 1] - hit.transitionStart[h]);
    this.maxSuccessors = Math.max(most, this.startIds.length) + 1;
    return this;
  }

  /**
   * Chebyshev distance transform of the open mask (two exact passes): freeReach = (distance to the nearest
   * closed tile) - 1, capped at 255. A transition whose cells all lie within freeReach of its origin is open
   * without scanning them (the common case in open terrain).
   */
  private computeFreeReach(area: number): void {
    const d = this.freeReach;
    const open = this.open;
    const W = this.stride, R = this.rows;
    for (let y = 0; y < R; y++) {
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        if (open[i] === 0 || x === 0 || y === 0 || x === W - 1 || y === R - 1) {
          d[i] = 0;
          continue;
        }
        let m = d[i - 1];
        const a = d[i - W - 1], b = d[i - W], c = d[i - W + 1];
        if (a < m) m = a;
        if (b < m) m = b;
        if (c < m) m = c;
        d[i] = m + 1 > 255 ? 255 : m + 1;
      }
    }
    for (let y = R - 2; y >= 1; y--) {
      for (let x = W - 2; x >= 1; x--) {
        const i = y * W + x;
        if (d[i] === 0) continue;
        let m = d[i];
        const e = d[i + 1] + 1, a = d[i + W - 1] + 1, b = d[i + W] + 1, c = d[i + W + 1] + 1;
        if (e < m) m = e;
        if (a < m) m = a;
        if (b < m) m = b;
        if (c < m) m = c;
        d[i] = m;
      }
    }
    // Distance 1 (a closed neighbour) means only the tile itself is surely open: reach 0.
    for (let i = 0; i < area; i++) if (d[i] > 0) d[i]--;
  }

  /** Fills {@link uniformCost} when all open window tiles cost the same (the same rounding as in expand). */
  private prepareUniformCost(area: number, n: number): void {
    let tc = -1;
    this.costIsUniform = true;
    for (let i = 0; i < area; i++) {
      if (this.open[i] === 0) continue;
      if (tc < 0) tc = this.cost[i];
      else if (this.cost[i] !== tc) {
        this.costIsUniform = false;
        return;
      }
    }
    const cached = this.terms.uniform.get(tc);
    if (cached) {
      this.uniformCost0 = cached[0];
      this.uniformCost1 = cached[1];
      return;
    }
    this.uniformCost0 = new Float64Array(n);
    this.uniformCost1 = new Float64Array(n);
    if (this.terms.uniform.size >= 8) this.terms.uniform.clear();
    this.terms.uniform.set(tc, [this.uniformCost0, this.uniformCost1]);
    const cusp = this.setup.cuspPenalty;
    const flags = this.setup.hit.flags;
    const lengthTerm = this.lengthTerm;
    const penaltyTerm = this.penaltyTerm;
    const cost = Math.fround(tc);
    for (let t = 0; t < n; t++) {
      const firstRev = (flags[t] & FIRST_REVERSE) !== 0 ? 1 : 0;
      for (let dir = 0; dir < 2; dir++) {
        (dir === 0 ? this.uniformCost0 : this.uniformCost1)[t] = Math.round(
          COST_SCALE * (lengthTerm[t] * cost + penaltyTerm[t] + (firstRev !== dir ? cusp : 0)),
        );
      }
    }
  }

  /** Fills {@link rowBits}: a sliding window of 2R + 1 closed flags along each padded row (outside = closed). */
  private computeRowBits(R: number): void {
    const open = this.open;
    const bitsOut = this.rowBits;
    const W = this.stride;
    const top = 2 * R;
    for (let y = 0; y < this.rows; y++) {
      const row = y * W;
      let bits = 0;
      for (let j = -R; j <= R; j++) {
        if (j < 0 || j >= W || open[row + j] === 0) bits |= 1 << (j + R);
      }
      bitsOut[row] = bits;
      for (let x = 1; x < W; x++) {
        const e = x + R;
        bits = (bits >>> 1) | (e >= W || open[row + e] === 0 ? 1 << top : 0);
        bitsOut[row + x] = bits;
      }
    }
  }

  /**
   * Lets {@link expand} read the g values of the search that runs on this space next (call after configure,
   * before astar with the same workspace). Optional: without it every successor's cells are tested.
   */
  useWorkspace(ws: SearchWorkspace): void {
    this.ws = ws;
  }

  /** Local (padded window) index of map tile (x, y). */
  private local(x: number, y: number): number {
    return (y - this.setup.window.y0 + this.pad) * this.stride + (x - this.setup.window.x0 + this.pad);
  }

  /** Map tile (x, y) of a local index. */
  private tileXY(lt: number): [number, number] {
    const ly = (lt / this.stride) | 0;
    const lx = lt - ly * this.stride;
    return [lx - this.pad + this.setup.window.x0, ly - this.pad + this.setup.window.y0];
  }

  /** Encodes a node state. */
  stateOf(x: number, y: number, heading: number, reverse: boolean): number {
    return ((this.local(x, y) * this.headings) + heading) * this.directions +
      (reverse && this.directions === 2 ? 1 : 0);
  }

  /** Decodes a node state into map tile x, y, heading index and last-motion-reverse flag. */
  decode(state: number): { x: number; y: number; heading: number; reverse: boolean } {
    const d = this.directions === 2 ? state & 1 : 0;
    const s = this.directions === 2 ? state >>> 1 : state;
    const h = s % this.headings;
    const [x, y] = this.tileXY((s - h) / this.headings);
    return { x, y, heading: h, reverse: d === 1 };
  }

  /** The pose of a state (exact start/goal poses for the two special states). */
  poseOf(state: number, from = -1): Pose {
    if (state === this.startState) return { ...this.setup.start };
    if (state === this.goalState) return this.analyticTarget(from);
    const d = this.decode(state);
    return { x: d.x + 0.5, y: d.y + 0.5, heading: headingAngle(d.heading, this.headings) };
  }

  /** Map tile id of a node state (-1 for the special states). */
  tileOf(state: number): number {
    if (state >= this.startState) return -1;
    const d = this.decode(state);
    return d.y * this.setup.layer.width + d.x;
  }

  /**
   * True if the curve's footprint overlaps no blocked tile (exact sweep of src/geometry/sweep.ts, early exit,
   * no allocation); for road-confined searches, no tile outside the window's road tiles either.
   */
  curveIsOpen(segs: readonly Segment[]): boolean {
    const L = this.exactLayer;
    const fp = this.setup.footprint;
    for (let i = 0; i < segs.length; i++) if (segmentHitsBlocked(L, segs[i], fp)) return false;
    return true;
  }

  /** A layer view whose open tiles are the window's passable road tiles (reuses one map-sized mask). */
  private roadLayer(layer: PassLayer, w: TileWindow): PassLayer {
    const n = layer.width * layer.height;
    if (this.roadOpen.length !== n) {
      this.roadOpen = new Uint8Array(n);
      this.roadWindow = null;
    }
    const mask = this.roadOpen;
    const old = this.roadWindow;
    if (old) {
      for (let y = old.y0; y < old.y1; y++) {
        mask.fill(0, y * layer.width + old.x0, y * layer.width + old.x1);
      }
    }
    for (let y = w.y0; y < w.y1; y++) {
      for (let x = w.x0; x < w.x1; x++) {
        const t = y * layer.width + x;
        mask[t] = layer.tileCost[t] > 0 && layer.road[t] === 1 ? 1 : 0;
      }
    }
    this.roadWindow = { ...w };
    // The sweep reads width, height, the zero test of tileCost and clearance, which certifies stretches free
    // without testing their cells: the map's clearance knows nothing of roads, so the view has none (all zero).
    if (this.roadClearance.length !== n) this.roadClearance = new Float32Array(n);
    return { ...layer, tileCost: mask as unknown as Float32Array, clearance: this.roadClearance };
  }

  /**
   * The node state of the start when it is exactly a tile center with a table heading (then the table's
   * transitions apply to it and no exact start curves are needed), else -1.
   */
  private snapStart(): number {
    const s = this.setup;
    const p = s.start;
    const x = Math.floor(p.x), y = Math.floor(p.y);
    if (Math.abs(p.x - (x + 0.5)) > 1e-9 || Math.abs(p.y - (y + 0.5)) > 1e-9) return -1;
    const w = s.window;
    if (x < w.x0 || y < w.y0 || x >= w.x1 || y >= w.y1) return -1;
    const h = nearestHeading(p.heading, this.headings);
    if (angleDistance(headingAngle(h, this.headings), p.heading) > 1e-9) return -1;
    const lt = this.local(x, y);
    if (this.open[lt] === 0) return -1;
    return this.stateOf(x, y, h, false);
  }

  /** Fixed-point cost of a curve ending on map tile (x, y), after a motion in direction `lastDir` (0: none). */
  curveCost(segs: readonly Segment[], endX: number, endY: number, lastDir: number): number {
    const s = this.setup;
    const m = measureCurve(segs);
    const tc = this.cost[this.local(endX, endY)] || 1;
    const cusps = m.cusps + (lastDir !== 0 && segs.length > 0 && m.first !== lastDir ? 1 : 0);
    return Math.round(
      COST_SCALE *
        ((m.forward + m.reverse * s.reversePenalty) * tc + m.turn * s.turnPenalty + cusps * s.cuspPenalty),
    );
  }

  private prepareGoal(): void {
    const s = this.setup;
    const g = s.goal;
    const H = this.headings;
    this.goalTileX = Math.floor(g.x);
    this.goalTileY = Math.floor(g.y);
    const cx = this.goalTileX + 0.5, cy = this.goalTileY + 0.5;
    const len = s.reverse ? reedsSheppLengthCoords : dubinsLengthCoords;
    const r = s.turningRadius;
    // Triangle inequality: d(p -> goal) >= d(p -> (c, q)) - d(goal -> (c, q)) for the goal tile center c.
    if (g.heading !== undefined) {
      this.goalTileHeading = nearestHeading(g.heading, H);
      this.goalSlack = len(g.x, g.y, g.heading, cx, cy, headingAngle(this.goalTileHeading, H), r);
    } else {
      // Any final heading: bound by the table's "any heading" column; the slack is the worst heading. It only
      // depends on the goal's place inside its tile, so it is computed once per place and curve family.
      this.goalTileHeading = -1;
      const key = `${g.x - cx}|${g.y - cy}|${r}|${s.reverse}|${H}`;
      const cached = slackCache.get(key);
      if (cached !== undefined) this.goalSlack = cached;
      else {
        let worst = 0;
        for (let i = 0; i < 256; i++) {
          const a = (2 * Math.PI * i) / 256;
          const q = nearestHeading(a, H);
          worst = Math.max(worst, len(g.x, g.y, a, cx, cy, headingAngle(q, H), r));
        }
        // Margin for the sampling of the worst heading.
        this.goalSlack = worst + (2 * Math.PI / 256) * r;
        if (slackCache.size > 4096) slackCache.clear();
        slackCache.set(key, this.goalSlack);
      }
    }
    // Goal nodes: tile centers within tolerance, headings within tolerance.
    this.goalNodes = [];
    this.goalHeadingMask = 0;
    if (g.heading === undefined) this.goalHeadingMask = (1 << H) - 1;
    else {
      for (let h = 0; h < H; h++) {
        if (angleDistance(headingAngle(h, H), g.heading) <= g.headingTolerance) {
          this.goalHeadingMask |= 1 << h;
        }
      }
    }
    const reach = Math.ceil(g.tolerance) + 1;
    for (let y = this.goalTileY - reach; y <= this.goalTileY + reach; y++) {
      for (let x = this.goalTileX - reach; x <= this.goalTileX + reach; x++) {
        if (Math.hypot(x + 0.5 - g.x, y + 0.5 - g.y) <= g.tolerance) this.goalNodes.push(x, y);
      }
    }
    this.goalNodeCap = this.goalNodes.length > 2 * 9;
    if (this.goalHeadingMask === 0) this.goalNodes = [];
    this.nearDistance = Math.max(4, 2 * r + 1);
    this.startIsGoal = Math.hypot(s.start.x - g.x, s.start.y - g.y) <= g.tolerance &&
      (g.heading === undefined || angleDistance(s.start.heading, g.heading) <= g.headingTolerance);
  }

  /**
   * Configures the geodesic bound: the window's open tiles; outside the window every map tile counts as open
   * (not for road searches, whose sweeps see only the window's roads), so the bound holds for any curve the
   * search may take; goal ends are the goal point and the goal-node tile centers.
   */
  private prepareGeodesic(area: number): void {
    if (this.tileH.length < area) {
      this.tileH = new Float64Array(area);
      this.tileNear = new Uint8Array(area);
    }
    this.tileH.fill(-1, 0, area);
    const s = this.setup;
    this.reverseExtra = Math.max(0, s.reversePenalty - 1);
    this.cuspFixed = Math.max(0, Math.floor(s.cuspPenalty * COST_SCALE));
    const w = s.window;
    const pad = this.pad;
    const ox = w.x0 - pad, oy = w.y0 - pad;
    const ends: number[] = [s.goal.x - ox, s.goal.y - oy];
    for (let i = 0; i < this.goalNodes.length; i += 2) {
      ends.push(this.goalNodes[i] + 0.5 - ox, this.goalNodes[i + 1] + 0.5 - oy);
    }
    const L = s.layer;
    const roads = s.roadsOnly;
    this.geo.configure(
      this.open,
      this.stride,
      this.rows,
      pad,
      (lx, ly) => {
        const x = lx + ox, y = ly + oy;
        return !roads && x >= 0 && y >= 0 && x < L.width && y < L.height;
      },
      ends,
      inscribedRadius(s.footprint),
    );
  }

  private prepareStart(): void {
    const s = this.setup;
    const H = this.headings;
    const w = s.window;
    const sx = Math.floor(s.start.x), sy = Math.floor(s.start.y);
    // The first curves are computed exactly, so they may reach a little further than the table: at least the
    // 5x5 square, which an off-center start with a tight turning radius needs to line up with the grid.
    const offsets = directionTable(s.hit.profile.neighborhood === 8 ? 24 : s.hit.profile.neighborhood);
    const best = new Map<number, number>();
    this.startVariant.clear();
    this.startIds = new Int32Array(0);
    this.startCosts = new Float64Array(0);
    // A start pose that overlaps a blocked tile: every curve from it would fail the sweep (~800 of them).
    if (footprintHitsBlocked(this.exactLayer, s.start.x, s.start.y, s.start.heading, s.footprint)) return;
    const r = s.turningRadius;
    for (let o = -1; o < offsets.length / 2; o++) {
      const x = sx + (o < 0 ? 0 : offsets[2 * o]);
      const y = sy + (o < 0 ? 0 : offsets[2 * o + 1]);
      if (x < w.x0 || y < w.y0 || x >= w.x1 || y >= w.y1) continue;
      const lt = this.local(x, y);
      if (this.nodeOk[lt] === 0 || this.bound[lt] === Infinity) continue;
      for (let h = 0; h < H; h++) {
        const target = { x: x + 0.5, y: y + 0.5, heading: headingAngle(h, H) };
        for (let v = 0; v < (s.reverse ? 2 : 1); v++) {
          const segs = transitionCurve(s.start, target, r, v);
          if (v === VARIANT_REEDS_SHEPP && !segs.some((q) => q.direction < 0)) continue;
          if (!this.curveIsOpen(segs)) continue;
          const m = measureCurve(segs);
          const id = this.stateOf(x, y, h, m.last < 0);
          const c = this.curveCost(segs, x, y, 0);
          const prev = best.get(id);
          if (prev === undefined || c < prev) {
            best.set(id, c);
            this.startVariant.set(id, v);
          }
        }
      }
    }
    this.startIds = new Int32Array(best.size);
    this.startCosts = new Float64Array(best.size);
    let i = 0;
    for (const [id, c] of best) {
      this.startIds[i] = id;
      this.startCosts[i] = c;
      i++;
    }
  }

  /** The analytic target pose seen from state `from` (the goal heading, or the bearing to the goal). */
  private analyticTarget(from: number): Pose {
    const g = this.setup.goal;
    if (g.heading !== undefined) return { x: g.x, y: g.y, heading: g.heading };
    const p = from >= 0 ? this.poseOf(from) : this.setup.start;
    return { x: g.x, y: g.y, heading: Math.atan2(g.y - p.y, g.x - p.x) };
  }

  /** The analytic curve from a state to the goal pose. */
  analyticCurve(from: number): Segment[] {
    const v = this.setup.reverse ? VARIANT_REEDS_SHEPP : VARIANT_DUBINS;
    return transitionCurve(this.poseOf(from), this.analyticTarget(from), this.setup.turningRadius, v);
  }

  /** Successors: the table's open transitions, plus the goal by analytic expansion when it is free. */
  expand(state: number, out: Successors, _parent: number): number {
    const ids = out.ids;
    const costs = out.costs;
    let n = 0;
    if (state === this.startState) {
      for (let i = 0; i < this.startIds.length; i++) {
        ids[n] = this.startIds[i];
        costs[n] = this.startCosts[i];
        n++;
      }
      return this.tryAnalytic(state, out, n, 0);
    }
    const H = this.headings;
    const D = this.directions;
    const dir = D === 2 ? state & 1 : 0;
    const s = D === 2 ? state >>> 1 : state;
    const h = s % H;
    const lt = (s - h) / H;
    const lpi = this.localPathIndex;
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
    const flags = hit.flags;
    const open = this.open;
    const nodeOk = this.nodeOk;
    const cost = this.cost;
    const tl = this.transitionLocal;
    const cl = this.cellLocal;
    const lengthTerm = this.lengthTerm;
    const penaltyTerm = this.penaltyTerm;
    const cusp = this.setup.cuspPenalty;
    const reach = this.reach;
    const fr = this.freeReach[lt];
    const useRows = this.useRows;
    const rowStart = this.rowStart;
    const rowMask = this.rowMask;
    const rowLocal = this.rowLocal;
    const rowBits = this.rowBits;
    const ws = this.ws;
    // Without a workspace, the skip test below never fires (stamps never equal -1).
    const stamp = ws !== null ? ws.stamp : EMPTY_STAMPS;
    const gen = ws !== null ? ws.generation : -1;
    const g = ws !== null ? ws.g : EMPTY_G;
    const gs = ws !== null ? g[state] : 0;
    const idDelta = this.idDelta;
    const idBase = lt * H * D;
    const uniform = this.costIsUniform;
    const uniformCost = dir === 0 ? this.uniformCost0 : this.uniformCost1;
    for (let t = tStart[h], end = tStart[h + 1]; t < end; t++) {
      const child = lt + tl[t];
      const id = idBase + idDelta[t];
      let c: number;
      if (uniform) c = uniformCost[t];
      else {
        // (A closed child's cost is 0: its c is meaningless but harmless, the node test below rejects it.)
        const firstRev = (flags[t] & FIRST_REVERSE) !== 0 ? 1 : 0;
        c = Math.round(
          COST_SCALE * (lengthTerm[t] * cost[child] + penaltyTerm[t] + (firstRev !== dir ? cusp : 0)),
        );
      }
      // Already reached at no more cost: A* would ignore it, so skip the node and cell tests (most successors
      // end here, so this test comes first).
      if (stamp[id] === gen && g[id] <= gs + c) continue;
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
    return this.tryAnalytic(state, out, n, D === 2 ? (dir === 1 ? -1 : 1) : 1);
  }

  private tryAnalytic(state: number, out: Successors, n: number, lastDir: number): number {
    const interval = this.setup.analyticInterval;
    if (interval <= 0) return n;
    this.expansions++;
    const p = this.poseOf(state);
    const g = this.setup.goal;
    const near = Math.hypot(p.x - g.x, p.y - g.y) <= this.nearDistance;
    if (!near && this.expansions % interval !== 0) return n;
    this.analyticTries++;
    const segs = this.analyticCurve(state);
    if (!this.curveIsOpen(segs)) return n;
    out.ids[n] = this.goalState;
    out.costs[n] = this.curveCost(segs, this.goalTileX, this.goalTileY, lastDir);
    return n + 1;
  }

  /**
   * Admissible estimate (fixed point) of the cost to the goal: the cost of any path is at least its length
   * times layer.minCost (penalties only add, reversePenalty >= 1), and its length is at least:
   * - the Euclidean distance to the goal point minus the tolerance;
   * - the smaller of: the table bound to the nearest accepted goal node (a tile center within tolerance, a
   *   heading within tolerance), and the table bound to the goal tile center minus the per-query slack
   *   d(goal pose -> goal tile center pose) (triangle inequality of the curve distance), which covers the
   *   exact goal reached by analytic expansion;
   * - the obstacle-aware grid bound given by the caller (src/planning/directional.ts);
   * - the geodesic bound (src/search/geodesicBound.ts).
   *
   * From a state whose last motion was reverse, a path either reverses all the way (its cost is at least
   * reversePenalty times the bound) or changes direction at least once (one cusp penalty more, charged to the
   * first transition or analytic curve that starts forward); the smaller of the two extras is added.
   *
   * All terms but the table bound depend on the tile only and are cached per tile; beyond the table's radius
   * (from the goal tile and every goal node) the table bound is the straight distance, cached likewise.
   */
  heuristic(state: number): number {
    if (state === this.goalState) return 0;
    if (state === this.startState) {
      const g = this.setup.goal;
      const p = this.setup.start;
      return Math.max(0, Math.floor((Math.hypot(p.x - g.x, p.y - g.y) - g.tolerance) * this.minCostScale));
    }
    const D = this.directions;
    const s = D === 2 ? state >>> 1 : state;
    const h = s % this.headings;
    const lt = (s - h) / this.headings;
    let v = this.tileH[lt];
    if (v < 0) v = this.tileHeuristic(lt);
    if (this.tileNear[lt] === 1) {
      const ly = (lt / this.stride) | 0;
      const x = lt - ly * this.stride - this.pad + this.setup.window.x0;
      const y = ly - this.pad + this.setup.window.y0;
      const curve = this.curveBound(x, y, h);
      const hc = curve > 0 ? Math.floor(curve * this.minCostScale) : 0;
      if (hc > v) v = hc;
    }
    if (D === 2 && (state & 1) === 1) {
      const extra = Math.floor(v * this.reverseExtra);
      v += extra < this.cuspFixed ? extra : this.cuspFixed;
    }
    return v;
  }

  /**
   * The length bound from the table (see {@link heuristic}) for tile (x, y) and heading h, before the max with
   * the straight distance.
   */
  private curveBound(x: number, y: number, h: number): number {
    const g = this.setup.goal;
    const heur = this.setup.heur;
    let curve = curveLowerBound(heur, this.goalTileX - x, this.goalTileY - y, h, this.goalTileHeading) -
      this.goalSlack;
    if (this.goalNodeCap) {
      curve = Math.min(curve, Math.hypot(x + 0.5 - g.x, y + 0.5 - g.y) - g.tolerance);
    } else {
      const nodes = this.goalNodes;
      const mask = this.goalHeadingMask;
      const all = g.heading === undefined;
      for (let i = 0; i < nodes.length && curve > 0; i += 2) {
        const dx = nodes[i] - x, dy = nodes[i + 1] - y;
        if (all) curve = Math.min(curve, curveLowerBound(heur, dx, dy, h, -1));
        else {
          for (let q = 0; q < this.headings; q++) {
            if ((mask >> q) & 1) curve = Math.min(curve, curveLowerBound(heur, dx, dy, h, q));
          }
        }
      }
    }
    return curve;
  }

  /** Fills the per-tile part of the heuristic of local tile lt (and whether the table applies there). */
  private tileHeuristic(lt: number): number {
    const g = this.setup.goal;
    const ly = (lt / this.stride) | 0;
    const lx = lt - ly * this.stride;
    const x = lx - this.pad + this.setup.window.x0;
    const y = ly - this.pad + this.setup.window.y0;
    const R = this.setup.heur.radius;
    let near = Math.abs(this.goalTileX - x) <= R && Math.abs(this.goalTileY - y) <= R;
    const nodes = this.goalNodes;
    for (let i = 0; i < nodes.length && !near; i += 2) {
      near = Math.abs(nodes[i] - x) <= R && Math.abs(nodes[i + 1] - y) <= R;
    }
    const euclid = Math.hypot(x + 0.5 - g.x, y + 0.5 - g.y) - g.tolerance;
    // Beyond the table every lookup is the straight distance, whatever the heading.
    const length = near ? euclid : Math.max(euclid, this.curveBound(x, y, 0));
    let v = length > 0 ? Math.floor(length * this.minCostScale) : 0;
    const hb = this.bound[lt];
    if (hb > v) v = hb;
    const d = this.geo.at(lx, ly);
    // Unreachable per the geodesic: left to the grid bound (which marks it Infinity when it agrees). The bound
    // can be exact (a straight run to a goal node), and each edge cost is rounded to an integer, so it gives up
    // half a unit per edge: at most d + 2 edges (transitions are at least one tile long, plus the analytic one).
    const hg = d === Infinity
      ? 0
      : Math.max(0, Math.floor(d * this.minCostScale * (1 - 1e-12) - 0.5 * d - 1));
    if (hg > v) v = hg;
    this.tileNear[lt] = near ? 1 : 0;
    this.tileH[lt] = v;
    return v;
  }

  /** Goal test: the goal state, or a tile-center node within tolerance (and heading tolerance). */
  isGoal(state: number): boolean {
    if (state === this.goalState) return true;
    if (state === this.startState) return this.startIsGoal;
    const g = this.setup.goal;
    const d = this.decode(state);
    if (Math.hypot(d.x + 0.5 - g.x, d.y + 0.5 - g.y) > g.tolerance) return false;
    return g.heading === undefined ||
      angleDistance(headingAngle(d.heading, this.headings), g.heading) <= g.headingTolerance;
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
    else if (a === this.startState) variant = this.startVariant.get(b) ?? VARIANT_DUBINS;
    else variant = this.tableVariant(a, b);
    const exact = transitionCurve(this.poseOf(a), this.poseOf(b, a), s.turningRadius, variant);
    const out: Segment[] = [];
    let pose = from;
    for (const seg of exact) {
      const next = seg.curvature === 0
        ? lineSegment(pose, seg.length, seg.direction)
        : arcSegment(pose, seg.curvature, seg.length, seg.direction);
      out.push(next);
      pose = next.end;
    }
    return out;
  }

  /** True when every cell of transition t from local tile lt is open. */
  private transitionFree(lt: number, t: number): boolean {
    if (this.useRows) {
      for (let k = this.rowStart[t]; k < this.rowStart[t + 1]; k++) {
        if ((this.rowBits[lt + this.rowLocal[k]] & this.rowMask[k]) !== 0) return false;
      }
      return true;
    }
    const cellStart = this.setup.hit.cellStart;
    for (let c = cellStart[t]; c < cellStart[t + 1]; c++) {
      if (this.open[lt + this.cellLocal[c]] === 0) return false;
    }
    return true;
  }

  /** The variant of the cheapest open table transition from a to b (what the search took). */
  private tableVariant(a: number, b: number): number {
    const hit = this.setup.hit;
    const D = this.directions;
    const sa = D === 2 ? a >>> 1 : a;
    const ha = sa % this.headings;
    const lta = (sa - ha) / this.headings;
    const dirA = D === 2 ? a & 1 : 0;
    const sb = D === 2 ? b >>> 1 : b;
    const hb = sb % this.headings;
    const ltb = (sb - hb) / this.headings;
    const lastB = D === 2 ? b & 1 : 0;
    let bestCost = Infinity;
    let variant = VARIANT_DUBINS;
    for (let t = hit.transitionStart[ha]; t < hit.transitionStart[ha + 1]; t++) {
      if (lta + this.transitionLocal[t] !== ltb || hit.endHeading[t] !== hb) continue;
      const f = hit.flags[t];
      if (D === 2 && ((f & LAST_REVERSE) !== 0 ? 1 : 0) !== lastB) continue;
      if (this.open[ltb] === 0 || !this.transitionFree(lta, t)) continue;
      const firstRev = (f & FIRST_REVERSE) !== 0 ? 1 : 0;
      const c = Math.round(
        COST_SCALE *
          (this.lengthTerm[t] * this.cost[ltb] + this.penaltyTerm[t] +
            (firstRev !== dirA ? this.setup.cuspPenalty : 0)),
      );
      if (c < bestCost) {
        bestCost = c;
        variant = (f & IS_REEDS_SHEPP) !== 0 ? VARIANT_REEDS_SHEPP : VARIANT_DUBINS;
      }
    }
    return variant;
  }
}
