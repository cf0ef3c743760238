/**
 * The reference of the long-route tests: one directional search over the whole map (no state cap when the window
 * is given), the unit's cheapest path on the 24-neighbourhood lattice, which the corridor refinement is measured
 * against.
 */
import { PlanBudget } from "../../src/planning/budget.ts";
import { directionalSearch } from "../../src/planning/directional.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import type { Pose } from "../../src/geometry/types.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { contextOf } from "./pathCheck.ts";

/** The whole-map directional search from `start` to `goal` (tolerance 0.5 tiles, heading 0.2 rad). */
export function fullDirectionalSearch(
  layer: PassLayer,
  unit: UnitSpec,
  start: Pose,
  goal: { x: number; y: number; heading?: number },
): ReturnType<typeof directionalSearch> {
  return directionalSearch(contextOf(layer), layer, { ...unit }, {
    start,
    goal: { ...goal, tolerance: 0.5, headingTolerance: 0.2 },
    neighborhood: 24,
    roadsOnly: false,
    reverse: unit.canReverse,
    maxExpansions: 2_000_000,
    window: { x0: 0, y0: 0, x1: layer.width, y1: layer.height },
  }, new PlanBudget(2_000_000, 60_000, null));
}
