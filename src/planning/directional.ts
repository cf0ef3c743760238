/**
 * PLANNER_DIRECTIONAL: the article's Directional A* (Directional-8/24/48) on the one A* core, with the
 * hit-check and heuristic tables of the unit's profile (from the context's table source: the service's store
 * reads them from tables/ when committed there, else builds them once per worker and caches them; planning
 * does no I/O), an obstacle-aware grid bound computed lazily per query (the search space adds the sharper
 * geodesic bound of src/search/geodesicBound.ts), analytic expansion to the exact goal pose, reverse motion and
 * penalties, roads, and budgets. Long queries follow a grid corridor window by window (corridorRefine.ts).
 *
 * Split by job: the unit's table profile in directionalProfile.ts, one search (window, growing windows, the
 * sweep check) in directionalSearch.ts, the eager reference bound in directionalGridBound.ts; this file is the
 * planner and re-exports those for its callers.
 *
 * @module
 */
import { pathCost } from "../motion/pathCost.ts";
import { applySpeedProfile } from "../motion/speedProfile.ts";
import type { Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import { type DirectionalNeighborhood, isDirectionalNeighborhood } from "../search/directionTable.ts";
import type { DirectionalRequest, DirectionalRun } from "../search/directionalSetup.ts";
import { type PlanBudget, planBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { LONG_ROUTE_TILES, refineCorridor } from "./corridorRefine.ts";
import { POINT_TURN_RADIUS, tableProfileOf } from "./directionalProfile.ts";
import { directionalSearch, holds, MAX_WINDOW_STATES, windowAround } from "./directionalSearch.ts";
import { type GridSearch, gridSearch } from "./gridRoute.ts";
import { longCorridorRoute } from "./corridorRoute.ts";
import { offLatticeFallback } from "./offLattice.ts";
import type { PlanOutcome, PlanTask } from "./task.ts";

export type { DirectionalRequest, DirectionalRun } from "../search/directionalSetup.ts";
export { buildTables, POINT_TURN_RADIUS, tableBytes, tableProfileOf } from "./directionalProfile.ts";
export { directionalSearch, windowAround } from "./directionalSearch.ts";
export { gridBound } from "./directionalGridBound.ts";

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
    // The 8-connected route (jump points) when it is long; else the 4-connected one, whose Manhattan bound is
    // weak on big maps (LONG_ROUTE_TILES) but whose corridor suits shorter queries (the figures of issue 7).
    // It is looked for only when the octile distance (a lower bound of its length) says it may be long.
    const dx = Math.abs(task.goal.x - task.start.x), dy = Math.abs(task.goal.y - task.start.y);
    const octile = Math.max(dx, dy) + (Math.SQRT2 - 1) * Math.min(dx, dy);
    let grid: GridSearch | null = null;
    if (2 * octile >= LONG_ROUTE_TILES) {
      // The hierarchical route when the abstract graph is ready here, else 8-connected A* (corridorRoute.ts).
      grid = longCorridorRoute(ctx, layer, task, budget);
      spent += grid.expansions;
    }
    const longRoute = grid !== null && grid.status === "found" && grid.path !== null &&
      grid.path.length >= LONG_ROUTE_TILES;
    if (grid === null || (grid.status !== "cancelled" && !longRoute)) {
      grid = gridSearch(ctx, layer, task, 4, budget);
      spent += grid.expansions;
    }
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
export function windowIsCapped(layer: PassLayer, task: PlanTask, req: DirectionalRequest): boolean {
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
  // A start-goal box spanning (nearly) the whole map is never shrunk, yet its states exceed the cap as well.
  const states = (w.x1 - w.x0 + 8) * (w.y1 - w.y0 + 8) * statesPerTile;
  return !holds(w, sx, sy, gx, gy, margin, layer) || states > MAX_WINDOW_STATES;
}
