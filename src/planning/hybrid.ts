/**
 * PLANNER_HYBRID: the article's fast hybrid ("Performance and Hybrid Solutions").
 *
 * 0. Direct: the shortest forward curve from the start to the goal (Dubins, or arc-then-line without a goal
 *    heading), returned when its sweep is legal (the analytic expansion of Hybrid A*, tried first); for units
 *    that can reverse then the shortest Reeds-Shepp curve, when its backing is a short maneuver
 *    ({@link MAX_DIRECT_REVERSE}).
 *    Fast lane (the common case): the curve fitting of PLANNER_CURVED (fitCurves in
 *    src/planning/curved.ts) along exactly the path PLANNER_SMOOTH computes (8-connected grid search, simple
 *    smoothing), else along the smoothed 4-connected grid path; each fit bounded by {@link FIT_CHECKS}.
 *    The fitting sweeps every segment for the footprint and uses the full turning radius only (no tightened or
 *    obstacle-ignoring curves), so these paths are verified once, there.
 * 1. 4-connected grid A* (gridSearch with neighbourhood 4); on a long query (an 8-connected route of at least
 *    {@link LONG_ROUTE_TILES} tiles) that route instead, going straight to step 7's corridor refinement. A query
 *    whose start-goal window the directional state cap would cut goes there too, along the 4-connected route
 *    (PLANNER_DIRECTIONAL's corridor: the same path, no stitch over the route's bounding box).
 * 2. (Steps 2-5 live in hybridStitch.ts.) Pre-smoothing forward: a Directional-24 search whose nodes stay on the grid path's tiles (hops of one or
 *    two path tiles, every table heading), giving up on nodes six or more path points behind the farthest one
 *    reached (DirectionalSetup.pathIndex); its farthest node is the failure point a.
 * 3. The same backward from the goal, on the reversed problem: start at the goal with its heading flipped by pi,
 *    aim at the start with its heading flipped. Driving a curve backwards in time with the heading flipped is
 *    again a curve of the same family (forward pieces stay forward, curvature changes sign) sweeping the same
 *    cells (footprints are symmetric under a half turn), so a legal reversed path is a legal forward one, also
 *    for forward-only units. Its failure point is b.
 * 4. Directional-8 from a to b (exact poses, b's heading flipped back) in a window around them, only when they
 *    are at most {@link MAX_GAP} tiles apart (else step 7).
 * 5. The three pieces are attached, re-emitted from one chained pose so joins are exact.
 * 6. Final simple smoothing: collinear lines merged, then stretches replaced by one shortest curve (Dubins, or
 *    Reeds-Shepp for reversing units) when it is shorter, no more cusps and its sweep is legal.
 * 7. When any of this fails, directional search within the remaining budget (the article's fallback): along
 *    the grid corridor window by window when it is long (corridorRefine.ts), else or when that fails in
 *    windows around start and goal that grow up to the state cap; then, where that lattice found nothing,
 *    the continuous-pose search (offLattice.ts).
 *
 * Every returned path is verified with the exact sweep and the curvature limit before "found" (step 0's by the
 * fitting itself, the others by a final check).
 *
 * @module
 */
import { reedsSheppShortest } from "../geometry/reedsShepp.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import { uniformCost } from "../maps/grid.ts";
import { pathCost } from "../motion/pathCost.ts";
import { applySpeedProfile } from "../motion/speedProfile.ts";
import { CORRIDOR_MIN_TILES, LONG_ROUTE_TILES, refineCorridor } from "./corridorRefine.ts";
import { smoothPath } from "../smoothing/simpleSmooth.ts";
import { directCurve, fitCurves } from "./curved.ts";
import {
  corridorKey,
  directionalMode,
  directionalOutcome,
  type DirectionalRequest,
  type DirectionalRun,
  directionalSearch,
  tableProfileOf,
  windowIsCapped,
} from "./directional.ts";
import { type PlanBudget, planBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { finalSmoothing, legalPath, radiusOf } from "./finalSmoothing.ts";
import { type GridSearch, gridSearch } from "./gridRoute.ts";
import { longCorridorRoute } from "./corridorRoute.ts";
import { type HybridTrace, stitch } from "./hybridStitch.ts";
import { offLatticeFallback } from "./offLattice.ts";
import { type PlanOutcome, planOutcome, type PlanTask } from "./task.ts";

/**
 * Curve checks the fast lane's fit may make per grid route. A work bound, not a time bound, so that the
 * same request gets the same path on an idle or a loaded machine (fits that succeed take 2-30 checks on the
 * benchmark scenarios; a failing one gives up here instead of inserting waypoints for long).
 */
export const FIT_CHECKS = 200;
/**
 * Curve checks of the fit when only the fast lane runs (PlanTask.fastLaneOnly): the service's inline lane runs
 * on its own thread, so the fit there is held to the checks a typical success takes (the worker, with
 * {@link FIT_CHECKS}, makes the same checks first and so returns the same path).
 */
export const INLINE_FIT_CHECKS = 32;
/**
 * Reverse driving a direct Reeds-Shepp curve may contain, in turning radii: a half circle, enough for the
 * backing leg of a three-point turn; longer backing is left to the searches, which weigh it with the
 * profile's reverse penalty.
 */
export const MAX_DIRECT_REVERSE = Math.PI;

/** True when every segment is within the curvature limit, untightened and unflagged (no sweep). */
function withinCurvature(task: PlanTask, segs: readonly Segment[]): boolean {
  const r = radiusOf(task);
  for (const s of segs) {
    if (Math.abs(s.curvature) > 1 / r + 1e-9 || s.tightened || s.touchesBlocked) return false;
  }
  return true;
}

/**
 * The shortest Reeds-Shepp curve from `start` to the goal (its heading, else the bearing from the start) when
 * it drives in reverse for at most {@link MAX_DIRECT_REVERSE} turning radii in total, else null. Obstacles are
 * not looked at.
 */
export function directManeuver(
  start: Pose,
  goal: { x: number; y: number; heading?: number },
  r: number,
): Segment[] | null {
  const heading = goal.heading ?? Math.atan2(goal.y - start.y, goal.x - start.x);
  const curve = reedsSheppShortest(start, { x: goal.x, y: goal.y, heading }, r);
  let backing = 0;
  for (const s of curve.segments) if (s.direction < 0) backing += s.length;
  return backing <= MAX_DIRECT_REVERSE * r ? curve.segments : null;
}

/** Test and debugging options of {@link planHybrid}; the defaults are the service's behaviour. */
export interface HybridOptions {
  /** Skip step 0 (the curve-fitting fast lane), to exercise the pre-smoothing and the stitch. */
  skipFastFit?: boolean;
  /** Filled in with what ran (see {@link HybridTrace}). */
  trace?: HybridTrace;
}

/** PLANNER_HYBRID (see the module doc). */
export function planHybrid(
  ctx: PlanContext,
  task: PlanTask,
  budget: PlanBudget = planBudget(task),
  opts: HybridOptions = {},
): PlanOutcome {
  const trace = opts.trace ?? null;
  const layer = ctx.layer(task.layerKey);
  const mode = directionalMode(layer, task);
  const reverse = task.unit.canReverse || task.options.allowBackingUp;
  const unit = task.unit;
  let expansions = 0;
  // Waypoints: the grid path, or null for a direct curve (then start and goal tile, built only when asked for).
  const done = (segments: Segment[], note: string, waypoints: Int32Array | null): PlanOutcome => {
    let length = 0;
    for (const s of segments) length += s.length;
    return planOutcome(task.planner, {
      status: task.nearest ? "nearest" : "found",
      segments,
      length,
      duration: applySpeedProfile(segments, unit),
      waypoints: task.wantWaypoints ? waypoints ?? Int32Array.of(task.startTile, task.goalTile) : null,
      expansions,
      message: note,
    });
  };

  // 0. Fast lane: curves fitted along the smoothed grid path, SMOOTH's 8-connected route first, then the
  //    4-connected one. The fitting sweeps every segment for the footprint and uses only the full turning
  //    radius, so its paths are not swept a second time (legality is verified once, there).
  let grid4: GridSearch | null = null;
  // A long 8-connected route (LONG_ROUTE_TILES): the corridor of the steps after the fast lane.
  let longRoute: GridSearch | null = null;
  const fastLaneOnly = task.fastLaneOnly === true;
  // The octile distance (a lower bound of the route) says the route may be long: its 8-connected route is then
  // the hierarchical one when the abstract graph is ready here (corridorRoute.ts), not a grid search.
  const qdx = Math.abs(task.goal.x - task.start.x), qdy = Math.abs(task.goal.y - task.start.y);
  const mayBeLong = 2 * (Math.max(qdx, qdy) + (Math.SQRT2 - 1) * Math.min(qdx, qdy)) >= LONG_ROUTE_TILES;
  let routeSource = "grid";
  const route8 = () => {
    if (!mayBeLong || fastLaneOnly) return gridSearch(ctx, layer, task, 8, budget);
    const r = longCorridorRoute(ctx, layer, task, budget);
    routeSource = r.source;
    return r;
  };
  if (unit.turningRadius > 0 && unit.headings === 0 && !mode.roadsOnly && !opts.skipFastFit) {
    // Candidates are compared by the unit's cost (pathCost); the cheapest legal one is returned.
    let best: { segs: Segment[]; cost: number; note: string; waypoints: Int32Array | null } | null = null;
    const consider = (segs: Segment[], note: string, waypoints: Int32Array | null, cost = costOf(segs)) => {
      if (best === null || cost < best.cost - 1e-9) best = { segs, cost, note, waypoints };
    };
    const costOf = (segs: readonly Segment[]) => pathCost(segs, unit, layer).total;
    // The shortest forward curve straight to the goal, when its sweep is legal and it crosses only the
    // cheapest terrain, is the answer outright: no forward path costs less, and no grid search is needed to
    // know the goal is reachable. Over dearer terrain it is one candidate.
    trace?.steps.push("direct");
    const direct = directCurve(task.start, task.goal, unit.turningRadius);
    // No forward path costs less than the shortest forward curve over the cheapest terrain.
    let forwardFloor = 0;
    // On a uniform-cost layer every curve's terrain is its length times that cost (no integration needed).
    const uniform = uniformCost(layer) > 0;
    let directLegal = false;
    if (direct) {
      let len = 0;
      for (const s of direct) len += s.length;
      forwardFloor = len * layer.minCost;
      if (legalPath(layer, task, direct)) {
        directLegal = true;
        const c = uniform ? null : pathCost(direct, unit, layer);
        if (c === null || c.terrain <= forwardFloor + 1e-9) {
          return done(direct, "shortest curve straight to the goal", null);
        }
        consider(direct, "shortest curve straight to the goal", null, c.total);
      }
    } else forwardFloor = Math.hypot(task.goal.x - task.start.x, task.goal.y - task.start.y) * layer.minCost;
    // A unit that can reverse next tries the shortest Reeds-Shepp curve, when its backing is only a maneuver (a
    // three-point turn in a corridor, say), not a long drive in reverse. It is the answer outright when no
    // forward path can cost less, or when the shortest forward curve is blocked (a forward path must then
    // go round) and the maneuver crosses only the cheapest terrain; else it is one candidate.
    const maneuver = reverse ? directManeuver(task.start, task.goal, unit.turningRadius) : null;
    if (maneuver && legalPath(layer, task, maneuver)) {
      const note = "shortest curve to the goal with a short reverse maneuver";
      const c = pathCost(maneuver, unit, layer);
      let len = 0;
      for (const s of maneuver) len += s.length;
      const cheapGround = c.terrain <= len * layer.minCost + 1e-9;
      if (c.total <= forwardFloor + 1e-9 || (!directLegal && cheapGround)) return done(maneuver, note, null);
      consider(maneuver, note, null, c.total);
    }
    trace?.steps.push("fit");
    for (const neighborhood of fastLaneOnly ? [8] as const : [8, 4] as const) {
      const search = neighborhood === 8 ? route8() : gridSearch(ctx, layer, task, neighborhood, budget);
      expansions += search.expansions;
      if (search.status === "cancelled") {
        return planOutcome(task.planner, { status: "cancelled", expansions });
      }
      // A complete 4-connected answer (path or none) is step 1's too; a partial one (budget) is not.
      if (neighborhood === 4 && search.status !== "budget") grid4 = search;
      if (search.status !== "found" || !search.path) continue;
      const smoothed = smoothPath(layer, unit.boundingRadius, search.path, layer.width);
      const fitWith = (backingUp: boolean) =>
        fitCurves({
          layer,
          unit,
          path: search.path!,
          smoothed,
          start: task.start,
          goal: task.goal,
          check: true,
          tighterTurns: false,
          backingUp,
          budget,
          maxChecks: fastLaneOnly ? INLINE_FIT_CHECKS : FIT_CHECKS,
        });
      const fit = fitWith(reverse);
      if (budget.cancelled()) {
        return planOutcome(task.planner, { status: "cancelled", expansions });
      }
      if (fit.status === "found" && withinCurvature(task, fit.segments)) {
        if (trace) trace.fitted = neighborhood;
        const note = `curves fitted to the smoothed ${neighborhood}-connected grid path`;
        consider(fit.segments, note, search.path);
        // A fit that backs up is weighed against the forward-only fit of the same route: a reverse leg that
        // looked cheaper locally may cost more over the whole path (the README's demo query).
        if (fit.segments.some((q) => q.direction < 0)) {
          const forward = fitWith(false);
          if (budget.cancelled()) return planOutcome(task.planner, { status: "cancelled", expansions });
          // The inline lane's smaller check bound must not decide differently from the pool's.
          if (forward.status === "failed" && forward.limited && fastLaneOnly) break;
          if (forward.status === "found" && withinCurvature(task, forward.segments)) {
            consider(forward.segments, `${note}, forward only`, search.path);
          }
        }
        // A fit that still backs up is returned as it is: PLANNER_AUTO's portfolio (src/planning/auto.ts)
        // weighs it against the directional searches, which a second grid route here would only delay (the
        // 4-connected route's fit cost parking queries 3x the expansions for no better answer).
        const chosen: { segs: Segment[]; note: string; waypoints: Int32Array | null } = best!;
        return done(chosen.segs, chosen.note, chosen.waypoints);
      }
      if (neighborhood === 8 && search.path.length >= LONG_ROUTE_TILES) {
        longRoute = search;
        break;
      }
    }
    // No fit: the cheapest direct candidate, settled only where the pool would settle it the same way.
    if (best !== null && !fastLaneOnly) {
      const chosen: { segs: Segment[]; note: string; waypoints: Int32Array | null } = best;
      return done(chosen.segs, chosen.note, chosen.waypoints);
    }
  }

  // fitOnly (a stream's drivable first answer): the steps above, as the pool runs them, and no search after.
  if (fastLaneOnly || task.fitOnly === true) {
    return planOutcome(task.planner, {
      status: "budget",
      expansions,
      message: "the hybrid's fast lane did not settle the query",
    });
  }
  // 1. 4-connected grid A* (the fast lane's when it ran to completion), or the long 8-connected route: the fast
  //    lane's, else (it did not run) looked for when the octile distance says the route may be long.
  trace?.steps.push("grid");
  if (longRoute === null && grid4 === null && !mode.roadsOnly) {
    if (mayBeLong) {
      const route = route8();
      expansions += route.expansions;
      if (route.status === "cancelled") return planOutcome(task.planner, { status: "cancelled", expansions });
      if (route.status === "found" && route.path && route.path.length >= LONG_ROUTE_TILES) longRoute = route;
    }
  }
  const grid = longRoute ?? grid4 ?? gridSearch(ctx, layer, task, 4, budget);
  if (grid !== grid4 && grid !== longRoute) expansions += grid.expansions;
  if (grid.status === "cancelled") return planOutcome(task.planner, { status: "cancelled", expansions });
  if (grid.status === "unreachable") {
    return planOutcome(task.planner, { status: "unreachable", expansions, message: "no grid path" });
  }
  const note: string[] = [];
  const request = {
    start: task.start,
    goal: task.goal,
    neighborhood: mode.neighborhood,
    roadsOnly: mode.roadsOnly,
    reverse,
    maxExpansions: budget.expansionsLeft(expansions),
  };
  // A long route skips the stitch: its pre-smoothing searches the route's bounding box (the whole map for a
  // diagonal crossing: a box-sized scratch, seconds, and at 8192^2 beyond the state cap), where the corridor
  // refinement below searches windows along the route and costs what the route's length asks for. So does a
  // query whose start-goal window the state cap would cut (the corridor is then PLANNER_DIRECTIONAL's way too,
  // along the same grid path, so both answer alike): on the 1,000-tile city pair the stitch took 44 ms for a
  // path 1.043x a full directional search, the corridor ~30 ms for 1.011x.
  const capped = !mode.roadsOnly && grid !== longRoute && windowIsCapped(layer, task, request);
  if (grid.status === "found" && grid.path && grid.path.length >= 2 && grid !== longRoute && !capped) {
    const stitched = stitch(ctx, layer, task, grid.path, mode, reverse, budget, trace);
    expansions += stitched.expansions;
    if (stitched.cancelled) return planOutcome(task.planner, { status: "cancelled", expansions });
    if (stitched.segments) {
      let segs = stitched.segments;
      if (!mode.roadsOnly) {
        trace?.steps.push("smooth");
        segs = finalSmoothing(layer, task, segs, reverse);
      }
      if (legalPath(layer, task, segs)) return done(segs, stitched.note, grid.path);
    }
    note.push(stitched.note);
  }
  // 7. Fallback: directional search (the article's Directional-24); along the grid corridor, window by
  // window, when the corridor is long (src/planning/corridorRefine.ts) or the start-goal window capped, else
  // (or when that fails) in windows around start and goal that grow up to the state cap.
  request.maxExpansions = budget.expansionsLeft(expansions);
  let run: DirectionalRun | null = null;
  if (
    grid.status === "found" && grid.path && (grid.path.length >= CORRIDOR_MIN_TILES || capped) &&
    grid.path.length >= 2 && !mode.roadsOnly
  ) {
    trace?.steps.push("corridor");
    const search = (r: DirectionalRequest) => directionalSearch(ctx, layer, unit, r, budget);
    const headings = tableProfileOf(unit, mode.neighborhood, reverse).headings;
    const corridor = { ...request, corridor: grid.path, headings, footprint: unit.footprint };
    run = refineCorridor(layer, corridor, search, budget.stopped);
    expansions += run.expansions;
    if (grid === longRoute && routeSource === "hierarchical") note.push("corridor: the hierarchical route");
    // Shared with AUTO's capped Directional search of the same corridor (PlanContext.routes).
    if (run.status === "found") ctx.routes?.set(corridorKey(task, mode.neighborhood, reverse), run);
    note.push(run.message);
  }
  if (run === null || (run.status !== "found" && !budget.stopped())) {
    trace?.steps.push("fallback");
    const left = budget.expansionsLeft(expansions);
    run = directionalSearch(ctx, layer, unit, { ...request, maxExpansions: left }, budget);
    expansions += run.expansions;
    note.push("full directional search");
  }
  const lattice = directionalOutcome(
    task,
    run,
    expansions,
    note.filter((s) => s !== "" && s !== run.message).join("; "),
  );
  // Where the lattice (tile-centre states) found nothing, poses between tile centres may still fit.
  return offLatticeFallback(layer, task, budget, expansions, lattice, radiusOf(task), (segs) => {
    const smoothed = finalSmoothing(layer, task, segs, reverse);
    return legalPath(layer, task, smoothed) ? smoothed : segs;
  });
}

/** Re-exported: the long-route threshold (corridorRefine.ts). */
export { LONG_ROUTE_TILES };

/** Re-exported: the stitch's trace and figures (hybridStitch.ts). */
export { type HybridTrace, MAX_GAP, newHybridTrace, PRESMOOTH_EXPANSIONS_PER_TILE } from "./hybridStitch.ts";

/** Re-exported for tests: the final smoothing (finalSmoothing.ts). */
export { finalSmoothing };

/** Re-exported for tests: the run type the hybrid composes. */
export type { DirectionalRun };
