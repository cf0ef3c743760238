/**
 * The corridor of a long curve-planner query from the hierarchical route (planning/corridorRoute.ts): with the
 * task's abstract graph prepared on this thread the route is the graph's refined tile route (a contiguous
 * 8-connected route from the start tile to the goal tile, open for the class), without it the 8-connected grid
 * route; HYBRID and DIRECTIONAL refine the hierarchical corridor to a legal path within 5% of a full directional
 * search (the same map and reference as longRoute.test.ts).
 */
import { describe, expect, test } from "vitest";
import { PlanBudget } from "../../src/planning/budget.ts";
import { PlanContext } from "../../src/planning/context.ts";
import { LONG_ROUTE_TILES } from "../../src/planning/corridorRefine.ts";
import { longCorridorRoute } from "../../src/planning/corridorRoute.ts";
import { planDirectional } from "../../src/planning/directional.ts";
import { abstractGraphFor } from "../../src/planning/hierarchical.ts";
import { newHybridTrace, planHybrid } from "../../src/planning/hybrid.ts";
import { clearanceClass } from "../../src/maps/layer.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { pathCost } from "../../src/motion/pathCost.ts";
import { tableStore } from "../../src/service/directionalTables.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkPath, layerOf, taskOf } from "../helpers/pathCheck.ts";
import { tiledRoomRows } from "../helpers/tiledMap.ts";
import { fullDirectionalSearch } from "../helpers/directionalReference.ts";
import { tileClearance } from "../../src/maps/grid.ts";

const tank = { ...BUILTIN_PROFILES.tank };
const layer = layerOf(tiledRoomRows(70, 1)); // 2240 x 32
const start = { x: 16.5, y: 16.5, heading: 0 }, goal = { x: 70 * 32 - 16.5, y: 20.5 };
const goalCheck = { ...goal, tolerance: 0.5 };
const cls = clearanceClass(tank.boundingRadius);
const prepared = buildRegionTable(layer, cls);
abstractGraphFor(prepared, layer, 8);
const unprepared = buildRegionTable(layer, cls);
const cost = (segs: Parameters<typeof pathCost>[0]) => pathCost(segs, tank, layer).total;
const big = () => new PlanBudget(2_000_000, 60_000, null);

/** A context holding the layer ("L") and a region table ("R"). */
const contextWith = (table: unknown) =>
  new PlanContext((k) => (k === "L" ? layer : k === "R" ? table : undefined), tableStore);
const task = () =>
  taskOf(layer, tank, start, goal, { neighborhood: 24, maxExpansions: 2_000_000, regionKey: "R" });

function fullSearchCost(): number {
  const full = fullDirectionalSearch(layer, tank, start, goal);
  expect(full.status).toBe("found");
  return cost(full.segments);
}

describe("long corridors from the hierarchical route", () => {
  test("with the graph prepared: the hierarchical route, contiguous and open; without: the grid route", () => {
    const t = task();
    const hier = longCorridorRoute(contextWith(prepared), layer, t, big());
    expect(hier.source).toBe("hierarchical");
    expect(hier.status).toBe("found");
    const path = hier.path!;
    expect(path.length).toBeGreaterThanOrEqual(LONG_ROUTE_TILES);
    expect(path[0]).toBe(t.startTile);
    expect(path[path.length - 1]).toBe(t.goalTile);
    const w = layer.width;
    for (let i = 0; i < path.length; i++) {
      expect(tileClearance(layer, path[i])).toBeGreaterThanOrEqual(cls);
      if (i === 0) continue;
      const dx = Math.abs((path[i] % w) - (path[i - 1] % w));
      const dy = Math.abs(Math.floor(path[i] / w) - Math.floor(path[i - 1] / w));
      expect(Math.max(dx, dy)).toBe(1);
    }
    const grid = longCorridorRoute(contextWith(unprepared), layer, t, big());
    expect(grid.source).toBe("grid");
    expect(grid.status).toBe("found");
  });

  test("HYBRID and DIRECTIONAL refine it: legal, within 5% of a full directional search", () => {
    const reference = fullSearchCost();
    const trace = newHybridTrace();
    const hybrid = planHybrid(contextWith(prepared), task(), undefined, { skipFastFit: true, trace });
    expect(hybrid.status, hybrid.message).toBe("found");
    expect(trace.steps).toEqual(["grid", "corridor"]);
    expect(hybrid.message).toMatch(/corridor: the hierarchical route/);
    expect(checkPath(layer, tank, hybrid, start, goalCheck)).toEqual([]);
    expect(cost(hybrid.segments) / reference).toBeLessThanOrEqual(1.05);
    const directional = planDirectional(contextWith(prepared), task());
    expect(directional.status, directional.message).toBe("found");
    expect(checkPath(layer, tank, directional, start, goalCheck)).toEqual([]);
    expect(cost(directional.segments) / reference).toBeLessThanOrEqual(1.05);
  });
});
