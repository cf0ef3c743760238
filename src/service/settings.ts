/**
 * The planning policy for a request's settings: which planner PLANNER_AUTO picks so that the unit's settings
 * are served, and which combinations of setting and planner are refused because the planner cannot honour
 * them (never silently ignored). Fixed-angle art and the notes on settings a planner prices but does not
 * minimise are applied after planning (src/planning/unitSettings.ts).
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";
import type { PlannerName } from "../planning/task.ts";
import { plannerLabel } from "../planning/unitSettings.ts";
import type { UnitSpec } from "../units/unit.ts";
import { invalid, ServiceError } from "./errors.ts";
import type { PlanOptions } from "./requests.ts";

/** Planners that keep to road tiles (their directional search confined to roads). */
const ROAD_PLANNERS: ReadonlySet<PlannerName> = new Set(["directional", "hybrid"]);

/**
 * The planner a unit's settings call for under PLANNER_AUTO, or null when the usual rule applies. With
 * `roadsOnly` only the roads rule counts (a stream's fast first answer, and AUTO's second try when DIRECTIONAL
 * found no path for a turn_penalty):
 * - `keep_to_roads`: HYBRID for units with a turning radius, DIRECTIONAL for units that turn in place (the
 *   line planners do not keep to roads);
 * - `turn_penalty` > 0: DIRECTIONAL, the one search that charges it.
 */
export function plannerForSettings(
  unit: UnitSpec,
  opts: Pick<PlanOptions, "keepToRoads">,
  roadsOnly = false,
): PlannerName | null {
  if (opts.keepToRoads) return unit.turningRadius > 0 ? "hybrid" : "directional";
  if (!roadsOnly && unit.turnPenalty > 0) return "directional";
  return null;
}

/**
 * Refuses what `planner` cannot honour, naming the setting: `options.allow_backing_up` for a unit that cannot
 * reverse (INVALID_ARGUMENT: the request contradicts itself), `options.keep_to_roads` under a planner that does
 * not keep to roads or with a start or goal off the road (FAILED_PRECONDITION).
 */
export function checkSettings(
  planner: PlannerName,
  unit: UnitSpec,
  opts: Pick<PlanOptions, "keepToRoads" | "allowBackingUp">,
  layer: PassLayer,
  startTile: number,
  goalTile: number,
): void {
  if (opts.allowBackingUp && !unit.canReverse) {
    throw invalid(
      "options.allow_backing_up",
      true,
      `the unit cannot reverse (unit.can_reverse is false for "${unit.name}"); set unit.can_reverse to allow ` +
        `backing up`,
    );
  }
  if (!opts.keepToRoads) return;
  if (!ROAD_PLANNERS.has(planner)) {
    throw new ServiceError(
      "FAILED_PRECONDITION",
      `options.keep_to_roads: ${plannerLabel(planner)} does not keep to roads; PLANNER_DIRECTIONAL, ` +
        `PLANNER_HYBRID and PLANNER_AUTO do`,
    );
  }
  const w = layer.width;
  for (const [what, t] of [["start", startTile], ["goal", goalTile]] as const) {
    if (layer.road[t] !== 1) {
      throw new ServiceError(
        "FAILED_PRECONDITION",
        `options.keep_to_roads: the ${what} tile (${t % w}, ${Math.floor(t / w)}) is not a road tile`,
      );
    }
  }
}
