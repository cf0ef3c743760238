/**
 * PLANNER_HYBRID: the article's fast hybrid. A 4-connected grid A*, then the pre-smoothing pass — a
 * Directional-24 search whose nodes stay on the grid path's tiles (it hops one or two tiles ahead and picks the
 * headings that make every turn legal), with a small expansion budget so a hopeless corridor gives up early —
 * and, when that fails, a full Directional search within the task's remaining budget. Every path it returns
 * comes from the directional machinery, so it is legal (swept footprint, curvature) by construction and
 * re-verified by the exact sweep; no smoothing is applied over curved parts.
 *
 * @module
 */
import { corridorMask, corridorWindow } from "../search/pathCorridor.ts";
import { directionalMode, directionalOutcome, directionalSearch } from "./directional.ts";
import { gridSearch, type PlanContext } from "./plan.ts";
import type { PlanOutcome, PlanTask } from "./task.ts";

/** Expansions the pre-smoothing pass may spend per path tile (plus a constant): it gives up beyond that. */
export const PRESMOOTH_EXPANSIONS_PER_TILE = 40;

/** PLANNER_HYBRID (see the module doc). */
export function planHybrid(ctx: PlanContext, task: PlanTask, cancel: Int32Array | null = null): PlanOutcome {
  const layer = ctx.layer(task.layerKey);
  const deadline = performance.now() + task.maxMillis;
  const mode = directionalMode(layer, task);
  const reverse = task.unit.canReverse || task.options.allowBackingUp;
  let expansions = 0;
  const grid = gridSearch(ctx, layer, task, 4, cancel);
  expansions += grid.expansions;
  if (grid.status === "cancelled") return directionalOutcome(task, emptyRun("cancelled"), expansions);
  if (grid.status === "found" && grid.path) {
    const path = grid.path;
    const run = directionalSearch(ctx, layer, task.unit, {
      start: task.start,
      goal: task.goal,
      neighborhood: mode.roadsOnly ? mode.neighborhood : 24,
      roadsOnly: mode.roadsOnly,
      reverse,
      window: corridorWindow(path, layer.width, layer.height, 6),
      nodeMask: corridorMask(path, layer.width, layer.height),
      maxExpansions: Math.min(
        task.maxExpansions - expansions,
        PRESMOOTH_EXPANSIONS_PER_TILE * path.length + 1000,
      ),
      deadline,
    }, cancel);
    expansions += run.expansions;
    if (run.status === "cancelled") return directionalOutcome(task, run, expansions);
    if (run.status === "found") {
      const out = directionalOutcome(task, run, expansions, "pre-smoothing along the grid path");
      if (task.wantWaypoints) out.waypoints = path;
      return out;
    }
  }
  // The corridor has no legal curve: search properly (the article's fallback to Directional-24).
  const run = directionalSearch(ctx, layer, task.unit, {
    start: task.start,
    goal: task.goal,
    neighborhood: mode.neighborhood,
    roadsOnly: mode.roadsOnly,
    reverse,
    maxExpansions: Math.max(0, task.maxExpansions - expansions),
    deadline,
  }, cancel);
  expansions += run.expansions;
  return directionalOutcome(task, run, expansions, "full directional search after the pre-smoothing failed");
}

function emptyRun(status: "cancelled") {
  return {
    status,
    segments: [],
    tiles: [],
    expansions: 0,
    tables: { source: "", millis: 0, key: "" },
    message: "",
  };
}
