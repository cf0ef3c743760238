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
import { exactEnds, joinExactEnds } from "./exactEnds.ts";

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
  // The path starts at the start pose and (when it reaches the goal) ends at the goal point (exactEnds.ts);
  // SMOOTH's first and last smoothing steps may skip the end tile centres, GRID keeps its tile route.
  const ends = exactEnds(task, status === "found");
  let segments: Segment[];
  let length: number;
  if (task.planner === "grid") {
    const centres = tileCenters(path, layer.width);
    const joined = joinExactEnds(layer, task.unit, centres, ends, false);
    if (typeof joined === "string") return noLegalJoin(task, search.expansions, path, joined);
    segments = polylineSegments(joined.points);
    // The A* cost of the tile route the path keeps, plus the joins priced by the same terrain.
    const kept = path.subarray(
      joined.skippedStart ? 1 : 0,
      joined.skippedGoal ? path.length - 1 : path.length,
    );
    length = gridPathLength(layer, kept, layer.width) + joined.joinCost;
    if (task.unit.headings > 0 && !sameEnds(joined.points, centres)) {
      // Fixed-angle art: the tile lines are at legal headings already, the joins are rewritten.
      const fixed = toFixedAngles(segments, task.unit.headings, {
        layer,
        footprint: task.unit.footprint,
        check: true,
      });
      if (!fixed) return noLegalArt(task, search.expansions, path);
      segments = fixed;
    }
  } else {
    const joined = joinExactEnds(
      layer,
      task.unit,
      smoothPath(layer, task.unit.boundingRadius, path, layer.width),
      ends,
      true,
    );
    if (typeof joined === "string") return noLegalJoin(task, search.expansions, path, joined);
    segments = polylineSegments(joined.points);
    if (task.unit.headings > 0) {
      // Fixed-angle art: every straight stretch at one of the unit's legal headings, still collision-free.
      const fixed = toFixedAngles(segments, task.unit.headings, {
        layer,
        footprint: task.unit.footprint,
        check: true,
      });
      if (!fixed) return noLegalArt(task, search.expansions, path);
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
    message: status === "budget"
      ? "search budget exhausted; partial path toward the goal"
      : search.plain && task.jumpsPending !== undefined
      ? task.jumpsPending
      : "",
  });
}

/** True when the joined polyline starts and ends where the tile centres do (no join was needed). */
function sameEnds(a: Float64Array, b: Float64Array): boolean {
  return a.length === b.length && a[0] === b[0] && a[1] === b[1] && a[a.length - 2] === b[b.length - 2] &&
    a[a.length - 1] === b[b.length - 1];
}

/** NO_LEGAL_PATH when no join to the exact start or goal is legal (the message says which). */
function noLegalJoin(task: PlanTask, expansions: number, path: Int32Array, message: string): PlanOutcome {
  return planOutcome(task.planner, {
    status: "no_legal_path",
    expansions,
    waypoints: task.wantWaypoints ? path : null,
    message,
  });
}

/** NO_LEGAL_PATH when fixed-angle art has no collision-free rewrite. */
function noLegalArt(task: PlanTask, expansions: number, path: Int32Array): PlanOutcome {
  return noLegalJoin(
    task,
    expansions,
    path,
    `no collision-free path along the ${task.unit.headings} legal headings of the unit's art`,
  );
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
  const joined = joinExactEnds(layer, task.unit, pts, exactEnds(task, !task.nearest), true);
  if (typeof joined === "string") return null;
  let segments = polylineSegments(joined.points);
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
