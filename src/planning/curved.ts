/**
 * PLANNER_CURVED: the article's "Legal Turns: The Basic Methods" as a post-process of grid A*.
 *
 * 1. 4-connected grid A* (the article's proviso for curved post-processing: with diagonal moves the smoothed
 *    path can demand impossible turns, its Figure 4).
 * 2. The simple smoothing pass (src/smoothing).
 * 3. The curve fit (curveFit.ts): from the exact start pose, each waypoint is reached with a turning-radius curve: the article's arc-then-line
 *    (either side) or a Dubins curve arriving with the heading of the next leg; the last leg ends exactly at the
 *    goal, with a final Dubins curve when the goal has a heading. Every curve is checked against the map for
 *    the unit's footprint (src/geometry/sweep.ts). When no candidate of a leg is legal, the planner backtracks
 *    to the previous leg's next candidate (within a budget); when that fails too, a tile of the unsmoothed grid
 *    path is inserted as an extra waypoint in the failing leg and the legs are solved again. Options:
 *    - ignoreObstaclesInCurves (the article's "simple solution"): take the first curve unchecked; segments that
 *      touch a blocked tile are flagged touchesBlocked;
 *    - tighterTurns ("making tighter turns"): curves with the radius shrunk by 0.75 steps down to 0.25 tiles are
 *      tried after the full radius; their arcs are flagged tightened (and the speed profile slows down there);
 *    - allowBackingUp ("backing up", units that can reverse): Reeds-Shepp curves (three-point turns, backing out)
 *      are tried after the forward curves at full radius.
 *    Without a legal path the status is "no_legal_path", never an illegal "found".
 * 4. Units with fixed-angle art (headings 8 or 16) get the path rewritten to legal headings (fixedAngle.ts).
 * 5. The speed profile (src/motion/speedProfile.ts).
 *
 * Units with turning radius 0 turn in place: the legs are straight lines between the waypoints.
 *
 * @module
 */
import { normalizeAngle } from "../geometry/angle.ts";
import { lineSegment, pathLength } from "../geometry/segment.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import { applySpeedProfile } from "../motion/speedProfile.ts";
import { smoothPath } from "../smoothing/simpleSmooth.ts";
import { toFixedAngles } from "./fixedAngle.ts";
import { type PlanBudget, planBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { fitCurves } from "./curveFit.ts";
import { gridSearch } from "./gridRoute.ts";
import { type PlanOutcome, planOutcome, type PlanTask } from "./task.ts";

// The curve fit is its own module; hybrid.ts imports it from here.
export { type CurveFit, type CurveFitRequest, directCurve, fitCurves } from "./curveFit.ts";

/** PLANNER_CURVED (see the module doc). */
export function planCurved(
  ctx: PlanContext,
  task: PlanTask,
  budget: PlanBudget = planBudget(task),
): PlanOutcome {
  const layer = ctx.layer(task.layerKey);
  const unit = task.unit;
  const search = gridSearch(ctx, layer, task, 4, budget);
  const expansions = search.expansions;
  if (search.status === "cancelled") return planOutcome(task.planner, { status: "cancelled", expansions });
  if (!search.path) {
    return planOutcome(task.planner, {
      status: search.status === "budget" ? "budget" : "unreachable",
      expansions,
      message: search.status === "budget" ? "search budget exhausted before any progress" : "no path",
    });
  }
  const path = search.path;
  const width = layer.width;
  const partial = search.status === "budget";
  const waypoints = task.wantWaypoints ? path : null;
  const lastTile = path[path.length - 1];
  const goalX = partial ? (lastTile % width) + 0.5 : task.goal.x;
  const goalY = partial ? Math.floor(lastTile / width) + 0.5 : task.goal.y;
  const goalHeading = partial ? undefined : task.goal.heading;
  const check = !task.options.ignoreObstaclesInCurves;
  const start = { x: task.start.x, y: task.start.y, heading: normalizeAngle(task.start.heading) };
  const fit = fitCurves({
    layer,
    unit,
    path,
    smoothed: smoothPath(layer, unit.boundingRadius, path, width),
    start,
    goal: { x: goalX, y: goalY, heading: goalHeading },
    check,
    tighterTurns: task.options.tighterTurns,
    backingUp: task.options.allowBackingUp,
    budget,
  });
  if (fit.status === "stopped") {
    if (budget.cancelled()) {
      return planOutcome(task.planner, { status: "cancelled", expansions });
    }
    return planOutcome(task.planner, {
      status: "budget",
      expansions,
      waypoints,
      message: "time budget exhausted while fitting curves to the grid path",
    });
  }
  if (fit.status === "failed") {
    return planOutcome(task.planner, {
      status: "no_legal_path",
      expansions,
      waypoints,
      message: fit.message,
    });
  }
  let segs = fit.segments;
  // A turn-in-place unit ends with a zero-length line carrying the goal heading.
  if (unit.turningRadius === 0 && goalHeading !== undefined) {
    const end = segs.length > 0 ? segs[segs.length - 1].end : start;
    if (Math.abs(normalizeAngle(goalHeading - end.heading)) > 1e-12) {
      segs.push(lineSegment({ x: end.x, y: end.y, heading: normalizeAngle(goalHeading) }, 0));
    }
  }
  if (unit.headings > 0) {
    const fixed = toFixedAngles(segs, unit.headings, {
      layer,
      footprint: unit.footprint,
      check,
    });
    if (!fixed) {
      return planOutcome(task.planner, {
        status: "no_legal_path",
        expansions,
        waypoints,
        message: `no collision-free path along the ${unit.headings} legal headings of the unit's art`,
      });
    }
    segs = fixed;
  }
  const notes: string[] = [];
  if (!check) {
    let touching = 0;
    for (const s of segs) {
      if (segmentHitsBlocked(layer, s, unit.footprint)) {
        s.touchesBlocked = true;
        touching++;
      }
    }
    notes.push(`approximation: curves ignore obstacles (${touching} segments touch blocked tiles, flagged)`);
  }
  const tightened = segs.reduce((n, s) => n + (s.tightened ? 1 : 0), 0);
  if (tightened > 0) notes.push(`${tightened} turns tightened below the turning radius`);
  if (segs.some((s, i) => i > 0 && s.direction !== segs[i - 1].direction)) notes.push("backs up (cusps)");
  if (partial) notes.push("search budget exhausted; partial path toward the goal");
  const duration = applySpeedProfile(segs, unit);
  return planOutcome(task.planner, {
    status: partial ? "budget" : task.nearest ? "nearest" : "found",
    segments: segs,
    length: pathLength(segs),
    waypoints,
    duration,
    expansions,
    message: notes.join("; "),
  });
}
