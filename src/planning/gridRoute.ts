/**
 * Grid routes shared by the planners: grid A* between the task's tiles (over jump points where they apply) and
 * the conversions of tile paths and point lists to tile centres and LINE segments.
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";
import { astar, reconstructPath } from "../search/astar.ts";
import type { Neighborhood } from "../search/gridSpace.ts";
import { expandJumpPath, hasJumpTables, useJumpPoints } from "../search/jumpPointSpace.ts";
import { lineSegment } from "../geometry/segment.ts";
import type { Segment } from "../geometry/types.ts";
import type { PlanBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import type { PlanTask } from "./task.ts";

/** A grid search result: the tile path (or null) and figures. */
export interface GridSearch {
  /** Tile ids from start to target, or null. */
  path: Int32Array | null;
  /** "found", "budget" (partial path to the best state), "cancelled" or "unreachable". */
  status: "found" | "budget" | "cancelled" | "unreachable";
  /** Expansions. */
  expansions: number;
  /** What the budget went to when it ran out before the search began (a one-off table build), if so. */
  preparing?: string;
  /** True when plain A* stood in for jump points (their tables are being built: PlanTask.jumpsPending). */
  plain?: boolean;
}

/**
 * Runs grid A* from the task's start tile to its goal tile: over jump points when the search is 8-connected on
 * a uniform-cost layer (same optimal costs, far fewer expansions), else tile by tile. Paths are full tile paths
 * either way; expansions are the A* core's.
 */
export function gridSearch(
  ctx: PlanContext,
  layer: PassLayer,
  task: PlanTask,
  neighborhood: Neighborhood,
  budget: PlanBudget,
): GridSearch {
  // Curve planners may be guided at the over-approximating class (PlanTask.guideClearance; never set for the
  // line planners, whose paths run through tile centers).
  const clearance = task.guideClearance ?? task.clearance;
  const routes = ctx.routes;
  if (routes === null) return search(ctx, layer, task, neighborhood, clearance, budget);
  // Shared within one task (PlanContext.sharingRoutes): a complete answer (a path or none) does not depend on
  // the budget, so a later search for the same route takes it without expansions.
  const key = `${task.layerKey}|${clearance}|${neighborhood}|${task.startTile}|${task.goalTile}`;
  const known = routes.get(key) as { layer: PassLayer; route: GridSearch } | undefined;
  if (known !== undefined && known.layer === layer) return { ...known.route, expansions: 0 };
  const route = search(ctx, layer, task, neighborhood, clearance, budget);
  if (route.status === "found" || route.status === "unreachable") routes.set(key, { layer, route });
  return route;
}

/** {@link gridSearch} without sharing. */
function search(
  ctx: PlanContext,
  layer: PassLayer,
  task: PlanTask,
  neighborhood: Neighborhood,
  clearance: number,
  budget: PlanBudget,
): GridSearch {
  // Tables being built in the background (PlanTask.jumpsPending): plain A* now rather than a build in the query.
  const plain = useJumpPoints(layer, neighborhood) && task.jumpsPending !== undefined &&
    !hasJumpTables(layer, clearance);
  const jump = useJumpPoints(layer, neighborhood) && !plain;
  // A first use's jump table build stops at the budget (resumed by the next query): "budget", not an overrun.
  // A context that may not build them on this map (the service's inline lane) answers "budget" without them.
  const space = jump
    ? (layer.width * layer.height <= ctx.maxBuildTiles || hasJumpTables(layer, clearance)
      ? ctx.jumpPoint.configureUntil(layer, clearance, task.goalTile, budget.stopped)
      : null)
    : ctx.grid.configure(layer, clearance, neighborhood, task.goalTile);
  if (space === null) {
    const status = budget.cancelled() ? "cancelled" : "budget";
    // Stopped in the build, or (inline lane) not allowed to build: only the first is worth telling.
    const built = layer.width * layer.height <= ctx.maxBuildTiles || hasJumpTables(layer, clearance);
    const preparing = built
      ? `preparing this map version's jump tables for clearance class ${clearance}`
      : undefined;
    return { path: null, status, expansions: 0, ...(preparing ? { preparing } : {}) };
  }
  const r = astar(space, ctx.workspace, [task.startTile], budget.limits(), ctx.result);
  const tilePath = (state: number) => {
    const path = reconstructPath(ctx.workspace, state);
    return jump ? expandJumpPath(layer, path) : path;
  };
  switch (r.status) {
    case "found":
      return {
        path: tilePath(r.goal),
        status: "found",
        expansions: r.expansions,
        ...(plain ? { plain } : {}),
      };
    case "budget":
    case "deadline":
      return {
        path: r.best >= 0 ? tilePath(r.best) : null,
        status: "budget",
        expansions: r.expansions,
      };
    case "cancelled":
      return { path: null, status: "cancelled", expansions: r.expansions };
    default:
      return { path: null, status: "unreachable", expansions: r.expansions };
  }
}

/** LINE segments through points (x, y pairs), forward; collinear runs are merged. */
export function polylineSegments(points: ArrayLike<number>): Segment[] {
  const segs: Segment[] = [];
  const n = points.length / 2;
  let i = 0;
  while (i < n - 1) {
    const x0 = points[2 * i], y0 = points[2 * i + 1];
    const dx = points[2 * i + 2] - x0, dy = points[2 * i + 3] - y0;
    let j = i + 1;
    // Extend while the next step keeps exactly the same direction (grid steps are exact small integers). The
    // tolerance scales with both lengths: a very short line (a join to an exact pose) never sets the direction.
    while (j < n - 1) {
      const ex = points[2 * j + 2] - points[2 * j], ey = points[2 * j + 3] - points[2 * j + 1];
      const scale = Math.hypot(dx, dy) * Math.hypot(ex, ey);
      if (Math.abs(ex * dy - ey * dx) > 1e-12 * scale || ex * dx + ey * dy <= 0) break;
      j++;
    }
    const x1 = points[2 * j], y1 = points[2 * j + 1];
    const len = Math.hypot(x1 - x0, y1 - y0);
    if (len > 0) segs.push(lineSegment({ x: x0, y: y0, heading: Math.atan2(y1 - y0, x1 - x0) }, len, 1));
    i = j;
  }
  return segs;
}

/** Tile centers of a tile path as x, y pairs. */
export function tileCenters(path: Int32Array, width: number): Float64Array {
  const pts = new Float64Array(path.length * 2);
  for (let i = 0; i < path.length; i++) {
    pts[2 * i] = (path[i] % width) + 0.5;
    pts[2 * i + 1] = Math.floor(path[i] / width) + 0.5;
  }
  return pts;
}
