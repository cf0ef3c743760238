/**
 * The planning dispatcher that runs inside a worker: builds the task's budget, runs the planner it names, and
 * gives every path its speed profile. Pure code over shared map data, no I/O, no policy. The planners compose
 * the cores: grid search (search/), smoothing (smoothing/), curves (geometry/).
 *
 * @module
 */
import { applySpeedProfile, splitAtSpeedPhases } from "../motion/speedProfile.ts";
import { pathCost } from "../motion/pathCost.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import { PlanBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { planGridOrSmooth } from "./gridPlanner.ts";
import type { PlanOutcome, PlanTask } from "./task.ts";
import { planCurved } from "./curved.ts";
import { planHierarchical } from "./hierarchical.ts";
import { planDirectional } from "./directional.ts";
import { planHybrid } from "./hybrid.ts";
import { planAuto } from "./auto.ts";
import { honourUnitSettings } from "./unitSettings.ts";

/** Runs one task; the cancel flag is polled by every search. */
export function runPlanTask(ctx: PlanContext, task: PlanTask, cancel: Int32Array | null): PlanOutcome {
  const t0 = performance.now();
  const budget = new PlanBudget(task.maxExpansions, task.maxMillis, cancel, t0);
  let out: PlanOutcome;
  switch (task.planner) {
    case "grid":
    case "smooth":
      out = planGridOrSmooth(ctx, task, budget);
      break;
    case "curved":
      out = planCurved(ctx, task, budget);
      break;
    case "hierarchical":
      out = planHierarchical(ctx, task, budget);
      break;
    case "directional":
      out = planDirectional(ctx, task, budget);
      break;
    case "hybrid":
      out = task.portfolio ? planAuto(ctx, task, budget) : planHybrid(ctx, task, budget);
      break;
    default:
      throw new Error(`planner ${task.planner} is not implemented in the worker`);
  }
  // Fixed-angle art, and settings the planner priced but did not minimise (src/planning/unitSettings.ts).
  // AUTO's portfolio answers with whichever planner's path was cheapest: settings are judged for that planner.
  honourUnitSettings(ctx, out.planner === task.planner ? task : { ...task, planner: out.planner }, out);
  // Line planners asked for by name for a unit that cannot turn in place: say what the corners are.
  if (
    task.unit.turningRadius > 0 && out.segments.length > 0 &&
    (task.planner === "grid" || task.planner === "smooth" || task.planner === "hierarchical")
  ) {
    const note = `lines only, an approximation for this unit: corners are turns in place, tighter than its ` +
      `turning radius ${task.unit.turningRadius} (PLANNER_HYBRID or PLANNER_DIRECTIONAL plan drivable curves)`;
    out.message = out.message ? `${out.message}; ${note}` : note;
  }
  // Every planner's path gets a speed profile when the unit has speed limits (planners may set it themselves).
  if (out.duration === 0 && out.segments.length > 0 && task.unit.maxSpeed > 0) {
    out.duration = applySpeedProfile(out.segments, task.unit);
  }
  finishOutcome(ctx, task, out);
  out.searchMicros = Math.round((performance.now() - t0) * 1000);
  return out;
}

/**
 * The last step of every task, whatever planner ran: the path is priced by the one cost model on the unit's own
 * layer (the task's layer carries the unit's terrain overrides), then its profiled segments are split where the
 * speed phase changes (accelerate, cruise, brake), so within every segment speed is linear in time and
 * length = (startSpeed + endSpeed) / 2 * duration (docs/segments.md). Splitting keeps the geometry, so it comes
 * after planners that smooth or profile their own paths.
 */
function finishOutcome(ctx: PlanContext, task: PlanTask, out: PlanOutcome): void {
  if (out.segments.length === 0) return;
  const layer = ctx.layer(task.layerKey);
  out.cost = pathCost(out.segments, task.unit, layer);
  if (task.unit.maxSpeed > 0) {
    out.segments = splitAtSpeedPhases(out.segments, task.unit);
    // A flagged segment's pieces keep the flag only where they touch a blocked tile themselves.
    for (const s of out.segments) {
      if (s.touchesBlocked && !segmentHitsBlocked(layer, s, task.unit.footprint)) s.touchesBlocked = false;
    }
  }
}
