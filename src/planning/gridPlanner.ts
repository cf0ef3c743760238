/**
 * PLANNER_GRID and PLANNER_SMOOTH: grid A* over the unit's clearance, then (SMOOTH) the article's simple
 * smoothing, and fixed-angle art where the unit has it.
 *
 * @module
 */
import { type PassLayer, uniformCost } from "../maps/grid.ts";
import { sweptMaxCost } from "../smoothing/walkable.ts";
import { gridPathLength, type Neighborhood } from "../search/gridSpace.ts";
import { smoothPath } from "../smoothing/simpleSmooth.ts";
import type { Segment } from "../geometry/types.ts";
import { toFixedAngles } from "./fixedAngle.ts";
import { type PlanBudget, planBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { gridSearch, polylineSegments, tileCenters } from "./gridRoute.ts";
import { type PlanOutcome, planOutcome, type PlanTask } from "./task.ts";

/**
 * GRID and SMOOTH: grid A*, then (SMOOTH) the article's simple smoothing. SMOOTH on a uniform-cost layer first
 * checks the straight line from the start tile to the goal tile: when the unit's disc can sweep it, that line
 * is the answer (no path is shorter, and uniform terrain has no costlier tiles to avoid), with no search.
 */
export function planGridOrSmooth(
  ctx: PlanContext,
  task: PlanTask,
  budget: PlanBudget = planBudget(task),
): PlanOutcome {
  const layer = ctx.layer(task.layerKey);
  if (task.planner === "smooth") {
    const direct = directLine(layer, task);
    if (direct) return direct;
  }
  const search = gridSearch(ctx, layer, task, task.neighborhood as Neighborhood, budget);
  if (search.status === "cancelled") {
    return planOutcome(task.planner, { status: "cancelled", expansions: search.expansions });
  }
  if (!search.path) {
    return planOutcome(task.planner, {
      status: search.status === "budget" ? "budget" : "unreachable",
      expansions: search.expansions,
      message: search.status !== "budget"
        ? "no path"
        : search.preparing
        ? `time budget exhausted while ${search.preparing} (a one-off per worker; the next request goes on ` +
          "from where this one stopped)"
        : "search budget exhausted before any progress",
    });
  }
  const path = search.path;
  const status = search.status === "budget" ? "budget" : task.nearest ? "nearest" : "found";
  let segments: Segment[];
  let length: number;
  if (task.planner === "grid") {
    segments = polylineSegments(tileCenters(path, layer.width));
    length = gridPathLength(layer, path, layer.width);
  } else {
    const pts = smoothPath(layer, task.unit.boundingRadius, path, layer.width);
    segments = polylineSegments(pts);
    if (task.unit.headings > 0) {
      // Fixed-angle art: every straight stretch at one of the unit's legal headings, still collision-free.
      const fixed = toFixedAngles(segments, task.unit.headings, {
        layer,
        footprint: task.unit.footprint,
        check: true,
      });
      if (!fixed) {
        return planOutcome(task.planner, {
          status: "no_legal_path",
          expansions: search.expansions,
          waypoints: task.wantWaypoints ? path : null,
          message: `no collision-free path along the ${task.unit.headings} legal headings of the unit's art`,
        });
      }
      segments = fixed;
    }
    length = segments.reduce((a, s) => a + s.length, 0);
  }
  return planOutcome(task.planner, {
    status,
    segments,
    length,
    waypoints: task.wantWaypoints ? path : null,
    expansions: search.expansions,
    message: status === "budget" ? "search budget exhausted; partial path toward the goal" : "",
  });
}

/** SMOOTH's straight line to the goal when it is walkable on a uniform-cost layer, else null. */
function directLine(layer: PassLayer, task: PlanTask): PlanOutcome | null {
  const uniform = uniformCost(layer);
  if (uniform <= 0 || task.startTile === task.goalTile) return null;
  const w = layer.width;
  const pts = Float64Array.of(
    (task.startTile % w) + 0.5,
    Math.floor(task.startTile / w) + 0.5,
    (task.goalTile % w) + 0.5,
    Math.floor(task.goalTile / w) + 0.5,
  );
  if (
    !(sweptMaxCost(layer, task.unit.boundingRadius, pts[0], pts[1], pts[2], pts[3], uniform, uniform) <=
      uniform)
  ) {
    return null;
  }
  let segments = polylineSegments(pts);
  if (task.unit.headings > 0) {
    const fixed = toFixedAngles(segments, task.unit.headings, {
      layer,
      footprint: task.unit.footprint,
      check: true,
    });
    if (!fixed) return null;
    segments = fixed;
  }
  return planOutcome(task.planner, {
    status: task.nearest ? "nearest" : "found",
    segments,
    length: segments.reduce((a, s) => a + s.length, 0),
    waypoints: task.wantWaypoints ? Int32Array.of(task.startTile, task.goalTile) : null,
    expansions: 0,
    message: "straight line to the goal",
  });
}
