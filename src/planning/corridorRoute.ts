/**
 * The route a long curve-planner query refines window by window (corridorRefine.ts): the hierarchical route when
 * this thread holds the prepared abstract graph of the task's region table (a few abstract expansions and a
 * walk of stored trees), else the 8-connected grid route (jump points: 1.2 M expansions, ~60% of a warm query on
 * the longest 8192^2 tiled-city pair). Both are legal tile routes for the unit's class from the start tile to
 * the goal tile; the refinement decides the path, the route only where its windows go.
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";
import type { PlanBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { LONG_ROUTE_TILES } from "./corridorRefine.ts";
import { type GridSearch, gridSearch } from "./gridRoute.ts";
import { readyHierarchicalRoute } from "./hierarchical.ts";
import type { PlanTask } from "./task.ts";

/** A long route and where it came from. */
export interface LongRoute extends GridSearch {
  /** "hierarchical" (the abstract graph's refined route) or "grid" (8-connected A*). */
  source: "hierarchical" | "grid";
}

/**
 * The 8-connected route of a query that may be long (the octile lower bound says the route may reach
 * {@link LONG_ROUTE_TILES}): the ready hierarchical route when it is at least that long, else grid A*. Routing
 * through the graph's entrances may cost a little more than the optimal grid route; the refinement's windows
 * straighten it within the corridor.
 */
export function longCorridorRoute(
  ctx: PlanContext,
  layer: PassLayer,
  task: PlanTask,
  budget: PlanBudget,
): LongRoute {
  const hier = readyHierarchicalRoute(ctx, task, budget);
  if (hier !== null && hier.tiles.length >= LONG_ROUTE_TILES) {
    return { path: hier.tiles, status: "found", expansions: hier.expansions, source: "hierarchical" };
  }
  const grid = gridSearch(ctx, layer, task, 8, budget);
  return { ...grid, expansions: grid.expansions + (hier?.expansions ?? 0), source: "grid" };
}
