/**
 * The directional search setup the search-level tests share: a unit's 24-direction reversing tables, its
 * penalties, tile-center start and goal, so each test states only what it varies.
 */
import type { PassLayer } from "../../src/maps/grid.ts";
import type { TileRect } from "../../src/maps/layer.ts";
import { tableProfileOf } from "../../src/planning/directional.ts";
import type { DirectionalSetup } from "../../src/search/directionalSetup.ts";
import { tableStore } from "../../src/service/directionalTables.ts";
import type { UnitSpec } from "../../src/units/unit.ts";

/**
 * A 24-direction reversing setup for `unit` from tile (sx, sy) heading 0 to tile (gx, gy), no grid bound,
 * analytic expansion every 8; `more` overrides any field.
 */
export function directionalSetupOf(
  unit: UnitSpec,
  layer: PassLayer,
  window: TileRect,
  [sx, sy, gx, gy]: readonly number[],
  more: Partial<DirectionalSetup> = {},
): DirectionalSetup {
  const profile = tableProfileOf(unit, 24, true);
  const tables = tableStore.tablesFor(profile);
  return {
    layer,
    hit: tables.hit,
    heur: tables.heur,
    window,
    roadsOnly: false,
    footprint: unit.footprint,
    turningRadius: profile.turningRadius,
    reverse: true,
    reversePenalty: unit.reversePenalty,
    turnPenalty: unit.turnPenalty,
    cuspPenalty: unit.cuspPenalty,
    start: { x: sx + 0.5, y: sy + 0.5, heading: 0 },
    goal: { x: gx + 0.5, y: gy + 0.5, tolerance: 0.5, headingTolerance: 0.2 },
    gridBound: null,
    analyticInterval: 8,
    ...more,
  };
}
