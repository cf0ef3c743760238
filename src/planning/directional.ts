/**
 * PLANNER_DIRECTIONAL: the article's Directional A* (Directional-8/24/48) on the one A* core, with the
 * hit-check and heuristic tables of the unit's profile (from the context's table source: the service's store
 * reads them from tables/ when committed there, else builds them once per worker and caches them; planning
 * does no I/O), an obstacle-aware grid bound from one backward Dijkstra per query (its own
 * workspace; the search space adds the sharper geodesic bound of src/search/geodesicBound.ts), analytic
 * expansion to the exact goal pose, reverse motion and penalties, roads, and budgets.
 *
 * @module
 */
import { pathCost } from "../motion/pathCost.ts";
import { applySpeedProfile } from "../motion/speedProfile.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import type { TileRect } from "../maps/layer.ts";
import {
  astar,
  COST_SCALE,
  newSearchResult,
  reconstructPath,
  type SearchSpace,
  SearchWorkspace,
  type Successors,
} from "../search/astar.ts";
import {
  type DirectionalNeighborhood,
  headingCount,
  isDirectionalNeighborhood,
} from "../search/directionTable.ts";
import type { DirectionalRequest, DirectionalRun } from "../search/directionalSetup.ts";
import { LazyGridBound } from "../search/directionalBound.ts";
import { DirectionalSpace } from "../search/directionalSpace.ts";
import { GridSpace } from "../search/gridSpace.ts";
import { buildHeuristicTable, type HeuristicTable } from "../search/heuristicTable.ts";
import {
  buildHitCheckTable,
  type HitCheckTable,
  packTables,
  tableKey,
  type TableProfile,
} from "../search/hitCheckTable.ts";
import type { UnitSpec } from "../units/unit.ts";
import { type PlanBudget, planBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { onReleaseScratch } from "./scratch.ts";
import { refineCorridor } from "./corridorRefine.ts";
import { gridSearch } from "./gridRoute.ts";
import { offLatticeFallback } from "./offLattice.ts";
import type { PlanOutcome, PlanTask } from "./task.ts";

export type { DirectionalRequest, DirectionalRun } from "../search/directionalSetup.ts";

/** Turning radius used for units that turn in place (radius 0): a small circle keeps the curves defined. */
export const POINT_TURN_RADIUS = 0.5;

/** The table profile of a unit for a neighbourhood. */
export function tableProfileOf(
  unit: Pick<UnitSpec, "footprint" | "turningRadius" | "headings" | "canReverse">,
  neighborhood: DirectionalNeighborhood,
  reverse = unit.canReverse,
): TableProfile {
  return {
    footprint: { ...unit.footprint },
    turningRadius: unit.turningRadius > 0 ? unit.turningRadius : POINT_TURN_RADIUS,
    headings: headingCount(neighborhood, unit.headings),
    neighborhood,
    reverse,
  };
}

/** Builds both tables of a profile (deterministic). */
export function buildTables(
  profile: TableProfile,
  onProgress?: (done: number, total: number) => void,
): { hit: HitCheckTable; heur: HeuristicTable } {
  const hit = buildHitCheckTable(profile, onProgress);
  const heur = buildHeuristicTable(profile.turningRadius, profile.headings, profile.reverse);
  return { hit, heur };
}

/** The packed (uncompressed) bytes of a profile's tables. */
export function tableBytes(
  profile: TableProfile,
  onProgress?: (done: number, total: number) => void,
): Uint8Array {
  const { hit, heur } = buildTables(profile, onProgress);
  return packTables(hit, heur);
}

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

interface DirectionalState {
  space: DirectionalSpace;
  gridWorkspace: SearchWorkspace;
  windowed: WindowedGrid;
  bound: Float64Array;
  lazy: LazyGridBound;
}

const perContext = new WeakMap<PlanContext, DirectionalState>();

function stateFor(ctx: PlanContext): DirectionalState {
  let s = perContext.get(ctx);
  if (!s) {
    s = {
      space: new DirectionalSpace(),
      gridWorkspace: new SearchWorkspace(),
      windowed: new WindowedGrid(),
      bound: new Float64Array(0),
      lazy: new LazyGridBound(),
    };
    perContext.set(ctx, s);
    const st = s;
    onReleaseScratch(ctx, (keep) => {
      let n = st.space.release(keep) + st.gridWorkspace.release(keep) + st.lazy.release(keep);
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

/** Upper bound on window states, to keep the workspace small (about 32 bytes per state). */
const MAX_WINDOW_STATES = 1 << 21;
/**
 * Windows whose start-goal box alone holds more states than this (about 1 GB of workspace) are not searched by
 * the growing-window search (see directionalSearch).
 */
const MAX_BOX_STATES = 1 << 25;

/**
 * A window around start and goal with a margin that grows with their distance (or the margin given), shrunk
 * until its states fit the cap ({@link MAX_WINDOW_STATES}).
 */
export function windowAround(
  layer: PassLayer,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  statesPerTile: number,
  initialMargin?: number,
): TileRect {
  const span = Math.max(Math.abs(ax - bx), Math.abs(ay - by));
  let margin = initialMargin ?? 16 + (span >> 1);
  for (;;) {
    const w: TileRect = {
      x0: Math.max(0, Math.min(ax, bx) - margin),
      y0: Math.max(0, Math.min(ay, by) - margin),
      x1: Math.min(layer.width, Math.max(ax, bx) + 1 + margin),
      y1: Math.min(layer.height, Math.max(ay, by) + 1 + margin),
    };
    if ((w.x1 - w.x0 + 8) * (w.y1 - w.y0 + 8) * statesPerTile <= MAX_WINDOW_STATES || margin <= 4) return w;
    margin = Math.floor(margin * 0.75);
  }
}

/** True when the window contains the box of (ax, ay) and (bx, by) grown by `margin` (clipped to the map). */
function holds(
  w: TileRect,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  margin: number,
  layer: PassLayer,
) {
  return w.x0 <= Math.max(0, Math.min(ax, bx) - margin) && w.y0 <= Math.max(0, Math.min(ay, by) - margin) &&
    w.x1 >= Math.min(layer.width, Math.max(ax, bx) + 1 + margin) &&
    w.y1 >= Math.min(layer.height, Math.max(ay, by) + 1 + margin);
}

/** True when window a is larger than b and contains it. */
function grewFrom(a: TileRect, b: TileRect): boolean {
  const contains = a.x0 <= b.x0 && a.y0 <= b.y0 && a.x1 >= b.x1 && a.y1 >= b.y1;
  return contains && (a.x0 < b.x0 || a.y0 < b.y0 || a.x1 > b.x1 || a.y1 > b.y1);
}

/**
 * One directional search with the unit's tables; the path is verified with the exact sweep before returning.
 * Without a window in the request, the search runs in a window around start and goal, and when that window
 * is exhausted without a path it grows (margin doubled, up to the whole map or the state cap) within the
 * budget: "no_legal_path" then means the whole map was searched. When the cap kept the window smaller than
 * the map, the answer is "budget" with a message saying the window limited the search.
 */
export function directionalSearch(
  ctx: PlanContext,
  layer: PassLayer,
  unit: UnitSpec,
  req: DirectionalRequest,
  budget: PlanBudget,
): DirectionalRun {
  if (req.window) return searchOnce(ctx, layer, unit, req, budget);
  const profile = tableProfileOf(unit, req.neighborhood, req.reverse);
  const statesPerTile = profile.headings * (req.reverse ? 2 : 1);
  const sx = Math.floor(req.start.x), sy = Math.floor(req.start.y);
  const gx = Math.floor(req.goal.x), gy = Math.floor(req.goal.y);
  const span = Math.max(Math.abs(sx - gx), Math.abs(sy - gy));
  let margin = 16 + (span >> 1);
  // A path cheaper than maxCost is at most maxCost / minCost long, so it stays inside the ellipse with foci
  // start and goal of that length: the start-goal box grown by its semi-minor axis (plus a tile for the
  // tile-center nodes) holds it. A capped search in a window containing that box is complete; the lazy
  // window raster makes the larger window cost nothing until touched.
  let capMargin = Infinity;
  if (req.maxCost !== undefined && Number.isFinite(req.maxCost)) {
    const a = req.maxCost / layer.minCost / 2;
    const c = Math.hypot(req.start.x - req.goal.x, req.start.y - req.goal.y) / 2;
    capMargin = Math.ceil(Math.sqrt(Math.max(0, a * a - c * c))) + 2;
    margin = Math.max(margin, capMargin);
  }
  let window = windowAround(layer, sx, sy, gx, gy, statesPerTile, margin);
  const states = (window.x1 - window.x0 + 8) * (window.y1 - window.y0 + 8) * statesPerTile;
  if (states > MAX_BOX_STATES) {
    // The start-goal box alone is beyond the cap (the window never shrinks below it): its workspace would take
    // gigabytes. Long queries go along a corridor instead (planDirectional, the hybrid's fallback).
    return {
      status: "budget",
      segments: [],
      tiles: [],
      expansions: 0,
      tables: { source: "none", millis: 0, key: tableKey(profile) },
      message: `the directional search window around start and goal would hold ${states} states (more than ` +
        `${MAX_BOX_STATES}); not searched, so a path is not ruled out`,
    };
  }
  let spent = 0;
  for (;;) {
    const run = searchOnce(
      ctx,
      layer,
      unit,
      { ...req, window, maxExpansions: req.maxExpansions - spent },
      budget,
    );
    spent += run.expansions;
    run.expansions = spent;
    if (run.status !== "no_legal_path" || run.message.startsWith("internal")) return run;
    const whole = window.x0 === 0 && window.y0 === 0 && window.x1 === layer.width &&
      window.y1 === layer.height;
    if (req.maxCost !== undefined && (whole || holds(window, sx, sy, gx, gy, capMargin, layer))) {
      return {
        ...run,
        message: `no directional path cheaper than ${req.maxCost.toFixed(2)} (the search covered every ` +
          `tile such a path can reach)`,
      };
    }
    if (whole) return run;
    margin = 2 * margin + Math.max(layer.width, layer.height);
    const grown = windowAround(layer, sx, sy, gx, gy, statesPerTile, margin);
    if (!grewFrom(grown, window) || spent >= req.maxExpansions || budget.stopped()) {
      // The window (its state cap), or the budget, not the map, ended the search: say so.
      const why = spent >= req.maxExpansions || budget.stopped()
        ? "the budget ran out before a larger window was searched"
        : "the map is larger than the search window's state cap";
      const cheaper = req.maxCost !== undefined ? ` cheaper than ${req.maxCost.toFixed(2)}` : "";
      return {
        ...run,
        status: "budget",
        message:
          `no legal directional path${cheaper} within the search window [${window.x0}, ${window.x1}) x ` +
          `[${window.y0}, ${window.y1}); ${why}, so a path outside it is not ruled out`,
      };
    }
    window = grown;
  }
}

/** {@link directionalSearch} in one window (the request's, else the default window around start and goal). */
function searchOnce(
  ctx: PlanContext,
  layer: PassLayer,
  unit: UnitSpec,
  req: DirectionalRequest,
  budget: PlanBudget,
): DirectionalRun {
  const profile = tableProfileOf(unit, req.neighborhood, req.reverse);
  const tables = ctx.tables.tablesUntil(profile, budget.stopped);
  if (tables === null) {
    const progress = ctx.tables.buildProgress(profile);
    return {
      status: budget.cancelled() ? "cancelled" : "budget",
      segments: [],
      tiles: [],
      expansions: 0,
      tables: { source: "building", millis: 0, key: tableKey(profile) },
      message:
        `time budget exhausted while building the unit's directional tables (a one-off per worker and ` +
        `profile; ${progress?.done ?? 0} of ${profile.headings} headings done, the next request goes on)`,
    };
  }
  const tinfo = {
    source: tables.source,
    millis: Math.round(tables.millis * 1000) / 1000,
    key: tables.hit.key,
  };
  const sx = Math.floor(req.start.x), sy = Math.floor(req.start.y);
  const gx = Math.floor(req.goal.x), gy = Math.floor(req.goal.y);
  const statesPerTile = profile.headings * (req.reverse ? 2 : 1);
  const window = req.window ?? windowAround(layer, sx, sy, gx, gy, statesPerTile);
  const empty = (status: DirectionalRun["status"], message: string, expansions = 0): DirectionalRun => ({
    status,
    segments: [],
    tiles: [],
    expansions,
    tables: tinfo,
    message,
  });
  if (gx < window.x0 || gy < window.y0 || gx >= window.x1 || gy >= window.y1) {
    return empty("no_legal_path", "goal outside the search window");
  }
  const st = stateFor(ctx);
  // The grid bound lazily, for the tiles the search touches (the eager gridBound is O(window + map)).
  // Under a cost cap, pruning needs an admissible bound: the cheapest step cost on maps whose costs vary.
  const lazy = st.lazy.configure(layer, window, gx, gy, sx, sy, req.roadsOnly, req.maxCost !== undefined);
  const space = st.space.configure({
    layer,
    hit: tables.hit,
    heur: tables.heur,
    window,
    roadsOnly: req.roadsOnly,
    footprint: unit.footprint,
    turningRadius: profile.turningRadius,
    reverse: req.reverse,
    reversePenalty: Math.max(1, unit.reversePenalty),
    turnPenalty: unit.turnPenalty,
    cuspPenalty: unit.cuspPenalty,
    start: req.start,
    goal: req.goal,
    gridBound: null,
    lazyBound: lazy,
    analyticInterval: req.analyticInterval ?? 8,
    nodeMask: req.nodeMask ?? null,
    pathIndex: req.pathIndex ?? null,
    maskWindow: req.maskWindow ?? null,
    // A cost cap prunes by f = g + h: only an admissible (unweighted) heuristic keeps that exact.
    heuristicWeight: req.maxCost === undefined ? req.heuristicWeight ?? 1 : 1,
    geodesic: req.geodesic ?? true,
  });
  space.useWorkspace(ctx.workspace);
  const start = space.snappedStart >= 0 ? space.snappedStart : space.startState;
  const limits = budget.limits(req.maxExpansions);
  if (req.maxCost !== undefined) limits.maxCost = req.maxCost * COST_SCALE;
  const r = astar(space, ctx.workspace, [start], limits, ctx.result);
  if (r.status === "cancelled") return empty("cancelled", "cancelled", r.expansions);
  let end = -1;
  let status: DirectionalRun["status"] = "found";
  if (r.status === "found") end = r.goal;
  else if ((r.status === "budget" || r.status === "deadline") && !req.pathIndex) {
    // No state with a finite heuristic was settled (the budget ran out at once): nothing to return.
    if (r.best < 0) return empty("budget", "the search budget ran out before any progress", r.expansions);
    end = r.best;
    status = "budget";
  } else if (req.pathIndex && space.farthestState >= 0) {
    // Pre-smoothing failed: the legal path up to the farthest path point reached (the failure point).
    end = space.farthestState;
    status = "partial";
  } else return empty("no_legal_path", "no legal directional path in the search window", r.expansions);
  const states = reconstructPath(ctx.workspace, end);
  const segments: Segment[] = [];
  const tiles: number[] = [sy * layer.width + sx];
  let pose: Pose = { ...req.start };
  for (let i = 1; i < states.length; i++) {
    const segs = space.edgeSegments(states[i - 1], states[i], pose);
    for (const s of segs) segments.push(s);
    if (segs.length > 0) pose = segs[segs.length - 1].end;
    const t = space.tileOf(states[i]);
    if (t >= 0 && t !== tiles[tiles.length - 1]) tiles.push(t);
  }
  if (states[states.length - 1] === space.goalState) {
    const t = gy * layer.width + gx;
    if (t !== tiles[tiles.length - 1]) tiles.push(t);
  }
  // Legality is a promise: re-check every output segment with the exact sweep (and the road rule).
  for (const s of segments) {
    if (!space.curveIsOpen([s])) {
      return empty("no_legal_path", "internal: a chained segment failed the sweep check", r.expansions);
    }
  }
  return {
    status,
    segments,
    tiles,
    expansions: r.expansions,
    tables: tinfo,
    message: status === "budget" ? "search budget exhausted; partial path toward the goal" : "",
  };
}

/** The neighbourhood and road confinement a task asks for (roads: Directional-8 or -24 by turning radius). */
export function directionalMode(
  layer: PassLayer,
  task: PlanTask,
): { neighborhood: DirectionalNeighborhood; roadsOnly: boolean } {
  const roadsOnly = task.options.keepToRoads && layer.road[task.startTile] === 1 &&
    layer.road[task.goalTile] === 1;
  if (roadsOnly) return { neighborhood: task.unit.turningRadius < 1.5 ? 8 : 24, roadsOnly };
  const n = task.neighborhood;
  return { neighborhood: isDirectionalNeighborhood(n) ? n : 24, roadsOnly };
}

/** Wraps a run into a PlanOutcome (speed profile, waypoints, length). */
export function directionalOutcome(
  task: PlanTask,
  run: DirectionalRun,
  expansions: number,
  note = "",
): PlanOutcome {
  // A pre-smoothing "partial" path is not an answer to the task: report it as a budget stop.
  const status = run.status === "found"
    ? (task.nearest ? "nearest" : "found")
    : run.status === "partial"
    ? "budget"
    : run.status;
  const segments = run.segments;
  const length = segments.reduce((a, s) => a + s.length, 0);
  const duration = segments.length > 0 ? applySpeedProfile(segments, task.unit) : 0;
  const tableNote = `tables ${run.tables.key} ${run.tables.source} ${run.tables.millis} ms`;
  return {
    status,
    segments,
    length,
    waypoints: task.wantWaypoints && run.tiles.length > 0 ? Int32Array.from(run.tiles) : null,
    duration,
    expansions,
    searchMicros: 0,
    planner: task.planner,
    message: [run.message, note, tableNote].filter((s) => s !== "").join("; "),
  };
}

/**
 * The key of a corridor refinement's answer among a task's shared routes (PlanContext.routes): the hybrid's
 * fallback and AUTO's capped Directional search refine the same grid corridor with the same request.
 */
export function corridorKey(task: PlanTask, neighborhood: number, reverse: boolean): string {
  const clearance = task.guideClearance ?? task.clearance;
  return `corridor|${task.layerKey}|${clearance}|${neighborhood}|${reverse}|${task.startTile}|${task.goalTile}`;
}

/**
 * PLANNER_DIRECTIONAL. With `maxCost` (AUTO's portfolio) it looks only for a path cheaper than that (see
 * {@link DirectionalRequest.maxCost}). A long query, whose window around start and goal the state cap would
 * cut, follows a grid corridor window by window first (src/planning/corridorRefine.ts; its cost is not
 * guaranteed optimal), then, if that finds nothing, the growing windows. Under a cost cap whose complete
 * search window the state cap would cut, the corridor's answer is returned when cheaper than the cap, else
 * "budget" (the capped search would be incomplete and take seconds on such a query).
 */
export function planDirectional(
  ctx: PlanContext,
  task: PlanTask,
  budget: PlanBudget = planBudget(task),
  maxCost?: number,
): PlanOutcome {
  const layer = ctx.layer(task.layerKey);
  const mode = directionalMode(layer, task);
  const request: DirectionalRequest = {
    start: task.start,
    goal: task.goal,
    neighborhood: mode.neighborhood,
    roadsOnly: mode.roadsOnly,
    reverse: task.unit.canReverse || task.options.allowBackingUp,
    maxExpansions: budget.maxExpansions,
    ...(maxCost === undefined ? {} : { maxCost }),
  };
  let spent = 0;
  let note = "";
  const long = !mode.roadsOnly && windowIsCapped(layer, task, request);
  if (long) {
    // Long query: the window around start and goal would be cut by the state cap (incomplete), so the
    // search follows a grid corridor window by window first (src/planning/corridorRefine.ts).
    const grid = gridSearch(ctx, layer, task, 4, budget);
    spent += grid.expansions;
    if (grid.status === "found" && grid.path && grid.path.length >= 2) {
      const search = (r: DirectionalRequest) => directionalSearch(ctx, layer, task.unit, r, budget);
      // Under a cost cap the refinement gives up once its path cannot be cheaper (CorridorRequest.abortAtCost).
      const abort = maxCost === undefined ? null : {
        cap: maxCost,
        costOf: (segs: readonly Segment[]) => pathCost(segs, task.unit, layer).total,
        minCost: layer.minCost,
        reached: false,
      };
      // The steps are not cost-capped (a step's own cost is far below the whole path's cap anyway).
      const { maxCost: _cap, ...uncapped } = request;
      // A stream's first drivable part: only the first windows (PlanTask.maxCorridorWindows).
      const prefix: { limit: number; reached?: boolean } | null = task.maxCorridorWindows === undefined
        ? null
        : { limit: task.maxCorridorWindows };
      // The hybrid's fallback may have refined this corridor already in this task (AUTO): its answer is the
      // one this would find (the same request, deterministic), so it is taken as it is.
      const known = prefix === null
        ? ctx.routes?.get(corridorKey(task, request.neighborhood, request.reverse)) as
          | DirectionalRun
          | undefined
        : undefined;
      const run = known !== undefined ? { ...known, expansions: 0 } : refineCorridor(
        layer,
        {
          ...uncapped,
          ...(prefix === null ? {} : { maxWindows: prefix }),
          maxExpansions: budget.expansionsLeft(spent),
          corridor: grid.path,
          headings: tableProfileOf(task.unit, request.neighborhood, request.reverse).headings,
          footprint: task.unit.footprint,
          ...(abort === null ? {} : { abortAtCost: abort }),
        },
        search,
        budget.stopped,
      );
      spent += run.expansions;
      if (run.status === "cancelled") return directionalOutcome(task, run, spent);
      if (abort?.reached) {
        // Given up as not cheaper than the cap.
        const why = `${run.message}; no cost-capped search on a query this long (its window would be cut), ` +
          "so a cheaper path is not ruled out";
        return directionalOutcome(task, { ...run, message: why }, spent);
      }
      if (run.status === "found") {
        if (prefix?.reached) return { ...directionalOutcome(task, run, spent), partial: true };
        if (maxCost === undefined) return directionalOutcome(task, run, spent);
        // AUTO's cost cap: the capped search could not be complete here (its window would be cut), and on a
        // long query it takes seconds to say so; the corridor's answer is returned when it is cheaper.
        const cost = pathCost(run.segments, task.unit, layer).total;
        if (cost < maxCost) return directionalOutcome(task, run, spent);
        const why = `the corridor's answer costs ${cost.toFixed(2)}, not less than ${maxCost.toFixed(2)}; ` +
          "no cost-capped search on a query this long (its window would be cut), so a cheaper path is not " +
          "ruled out";
        return directionalOutcome(task, { ...run, status: "budget", segments: [], message: why }, spent);
      }
      note = run.message;
    }
    if (budget.stopped()) {
      const empty = { status: "budget" as const, segments: [], tiles: [], expansions: spent };
      const tables = { source: "none", millis: 0, key: "" };
      return directionalOutcome(task, { ...empty, tables, message: note || "budget exhausted" }, spent);
    }
  }
  const run = directionalSearch(ctx, layer, task.unit, {
    ...request,
    maxExpansions: budget.expansionsLeft(spent),
  }, budget);
  spent += run.expansions;
  const out = directionalOutcome(task, run, spent, note);
  // Where the lattice (states on tile centres) found nothing, poses between tile centres may still fit
  // (offLattice.ts). Not under AUTO's cost cap: there "none" means "none cheaper".
  if (maxCost !== undefined) return out;
  const r = task.unit.turningRadius > 0 ? task.unit.turningRadius : POINT_TURN_RADIUS;
  return offLatticeFallback(layer, task, budget, spent, out, r);
}

/**
 * True when the state cap would cut the default window around the task's start and goal (under a cost cap:
 * the window that would make the capped search complete, see directionalSearch).
 */
function windowIsCapped(layer: PassLayer, task: PlanTask, req: DirectionalRequest): boolean {
  const profile = tableProfileOf(task.unit, req.neighborhood, req.reverse);
  const statesPerTile = profile.headings * (req.reverse ? 2 : 1);
  const sx = Math.floor(req.start.x), sy = Math.floor(req.start.y);
  const gx = Math.floor(req.goal.x), gy = Math.floor(req.goal.y);
  let margin = 16 + (Math.max(Math.abs(sx - gx), Math.abs(sy - gy)) >> 1);
  if (req.maxCost !== undefined && Number.isFinite(req.maxCost)) {
    const a = req.maxCost / layer.minCost / 2;
    const c = Math.hypot(req.start.x - req.goal.x, req.start.y - req.goal.y) / 2;
    margin = Math.ceil(Math.sqrt(Math.max(0, a * a - c * c))) + 2;
  }
  const w = windowAround(layer, sx, sy, gx, gy, statesPerTile, margin);
  return !holds(w, sx, sy, gx, gy, margin, layer);
}
