/**
 * The curve planners' last resort where the directional lattice found no path: the continuous-pose search
 * (continuousSearch.ts), which places the footprint wherever it fits (the centre line of an even-width
 * corridor, between tile centres). PLANNER_HYBRID runs it after its full directional search, PLANNER_DIRECTIONAL
 * after its own; the answer says in its message that it came from the off-lattice search.
 *
 * @module
 */
import type { Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import { applySpeedProfile } from "../motion/speedProfile.ts";
import type { PlanBudget } from "./budget.ts";
import { continuousSearch } from "./continuousSearch.ts";
import type { PlanOutcome, PlanTask } from "./task.ts";

/**
 * True when the lattice's outcome leaves room for the off-lattice search: it found no legal path, and the task
 * is not in a road or fixed-angle mode (the continuous primitives follow neither).
 */
export function offLatticeApplies(task: PlanTask, lattice: PlanOutcome): boolean {
  // Only after a lattice search that ran out of states (a window or budget stop is not "none").
  if (lattice.status !== "no_legal_path") return false;
  return !task.options.keepToRoads && task.unit.headings === 0;
}

/**
 * Runs the continuous search after the lattice's `lattice` outcome (spent `expansions` so far), its arcs at
 * `turningRadius` (the lattice's: POINT_TURN_RADIUS for units that turn in place): its path when found, else the
 * lattice's outcome with a note on what the continuous search did. `polish` (the hybrid's final smoothing) may
 * replace the path by a cheaper legal one.
 */
export function offLatticeFallback(
  layer: PassLayer,
  task: PlanTask,
  budget: PlanBudget,
  expansions: number,
  lattice: PlanOutcome,
  turningRadius: number,
  polish: (segs: Segment[]) => Segment[] = (segs) => segs,
): PlanOutcome {
  if (!offLatticeApplies(task, lattice) || budget.millisLeft() <= 0 || budget.cancelled()) return lattice;
  const left = budget.expansionsLeft(expansions);
  if (left <= 0) return lattice;
  const run = continuousSearch(layer, task.unit, {
    start: task.start,
    goal: task.goal,
    reverse: task.unit.canReverse || task.options.allowBackingUp,
    turningRadius,
    maxExpansions: left,
  }, budget);
  const total = expansions + run.expansions;
  if (run.status === "cancelled") return { ...lattice, status: "cancelled", expansions: total };
  if (run.status !== "found") {
    const what = run.status === "exhausted"
      ? "found none either (every reachable pose bin searched)"
      : `stopped (${run.status}) after ${run.expansions} expansions`;
    return { ...lattice, expansions: total, message: `${lattice.message}; the off-lattice search ${what}` };
  }
  const segments = polish(run.segments);
  return {
    ...lattice,
    status: task.nearest ? "nearest" : "found",
    segments,
    length: segments.reduce((a, s) => a + s.length, 0),
    duration: applySpeedProfile(segments, task.unit),
    waypoints: task.wantWaypoints ? Int32Array.of(task.startTile, task.goalTile) : null,
    expansions: total,
    message: `off-lattice search (continuous poses): the directional lattice found none (${lattice.message})`,
  };
}
