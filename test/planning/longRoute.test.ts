/**
 * Long queries for turning units (issue 13): an 8-connected route of LONG_ROUTE_TILES or more is the corridor of
 * PLANNER_HYBRID (no 4-connected grid search, no box-sized stitch: straight to the corridor refinement) and of
 * PLANNER_DIRECTIONAL (a start-goal box spanning the whole map: test/planning/directionalWindow.test.ts). Paths
 * are legal by the independent checker and within 5% of a full directional search of the whole map.
 */
import { describe, expect, test } from "vitest";
import { LONG_ROUTE_TILES } from "../../src/planning/corridorRefine.ts";
import { planDirectional } from "../../src/planning/directional.ts";
import { newHybridTrace, planHybrid } from "../../src/planning/hybrid.ts";
import { pathCost } from "../../src/motion/pathCost.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkPath, contextOf, layerOf, taskOf } from "../helpers/pathCheck.ts";
import { tiledRoomRows } from "../helpers/tiledMap.ts";
import { fullDirectionalSearch } from "../helpers/directionalReference.ts";

const tank = { ...BUILTIN_PROFILES.tank };
// 70 rooms of 32 x 32 in a row (2240 x 32): a route of ~2,200 tiles, beyond LONG_ROUTE_TILES.
const layer = layerOf(tiledRoomRows(70, 1));
const start = { x: 16.5, y: 16.5, heading: 0 }, goal = { x: 70 * 32 - 16.5, y: 20.5 };
const goalCheck = { ...goal, tolerance: 0.5 };
const cost = (segs: Parameters<typeof pathCost>[0]) => pathCost(segs, tank, layer).total;

/** The reference: one directional search over the whole map (no state cap when the window is given). */
function fullSearchCost(): number {
  const full = fullDirectionalSearch(layer, tank, start, goal);
  expect(full.status).toBe("found");
  return cost(full.segments);
}

describe("long routes for turning units", () => {
  test("HYBRID past its fast lane refines the long 8-connected route window by window: legal, within 5%", () => {
    const trace = newHybridTrace();
    const task = taskOf(layer, tank, start, goal, { neighborhood: 24, maxExpansions: 2_000_000 });
    const out = planHybrid(contextOf(layer), task, undefined, { skipFastFit: true, trace });
    expect(out.status, out.message).toBe("found");
    // No pre-smoothing stitch over the route's bounding box: straight to the corridor refinement.
    expect(trace.steps).toEqual(["grid", "corridor"]);
    const m = out.message.match(/corridor refinement: \d+ windows along a (\d+)-tile corridor/);
    expect(m, out.message).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(LONG_ROUTE_TILES);
    // Said once (the refinement's message used to appear twice).
    expect(out.message.split("corridor refinement").length).toBe(2);
    expect(checkPath(layer, tank, out, start, goalCheck)).toEqual([]);
    const ratio = cost(out.segments) / fullSearchCost();
    expect(ratio).toBeLessThanOrEqual(1.05);
    expect(ratio).toBeGreaterThan(0.95);
  });

  test("a shorter query keeps the 4-connected route and the stitch", () => {
    const trace = newHybridTrace();
    const near = { x: 20 * 32 - 16.5, y: 20.5 };
    const task = taskOf(layer, tank, start, near, { neighborhood: 24, maxExpansions: 2_000_000 });
    const out = planHybrid(contextOf(layer), task, undefined, { skipFastFit: true, trace });
    expect(out.status, out.message).toBe("found");
    expect(trace.steps).toContain("forward");
    expect(trace.steps).not.toContain("corridor");
    expect(checkPath(layer, tank, out, start, { ...near, tolerance: 0.5 })).toEqual([]);
  });

  test("past its fast lane, HYBRID follows DIRECTIONAL's corridor where the start-goal window is capped", () => {
    // 10 x 10 rooms (320^2): a diagonal crossing whose start-goal window the state cap cuts, with a route below
    // LONG_ROUTE_TILES. HYBRID used to pre-smooth and stitch over the route's bounding box there.
    const rooms = layerOf(tiledRoomRows(10, 10));
    const from = { x: 16.5, y: 16.5, heading: 0 }, to = { x: 9 * 32 + 16.5, y: 9 * 32 + 20.5 };
    const task = (planner: "hybrid" | "directional") =>
      taskOf(rooms, tank, from, to, { planner, neighborhood: 24, maxExpansions: 2_000_000 });
    const trace = newHybridTrace();
    const hyb = planHybrid(contextOf(rooms), task("hybrid"), undefined, { skipFastFit: true, trace });
    expect(hyb.status, hyb.message).toBe("found");
    expect(trace.steps).toEqual(["grid", "corridor"]);
    expect(hyb.message).toMatch(/corridor refinement: \d+ windows along a \d+-tile corridor/);
    expect(checkPath(rooms, tank, hyb, from, { ...to, tolerance: 0.5 })).toEqual([]);
    // The same corridor and request as PLANNER_DIRECTIONAL's: the same path.
    const dir = planDirectional(contextOf(rooms), task("directional"));
    expect(dir.status, dir.message).toBe("found");
    expect(dir.message).toMatch(/corridor refinement/);
    const c = (o: typeof hyb) => pathCost(o.segments, tank, rooms).total;
    expect(c(hyb)).toBeCloseTo(c(dir), 9);
    expect(hyb.segments.length).toBe(dir.segments.length);
  });

  test("DIRECTIONAL on a query beyond one window plans along the route: legal, within 5%", () => {
    const task = taskOf(layer, tank, start, goal, { neighborhood: 24, maxExpansions: 2_000_000 });
    const out = planDirectional(contextOf(layer), task);
    expect(out.status, out.message).toBe("found");
    expect(out.message).toMatch(/corridor refinement/);
    expect(checkPath(layer, tank, out, start, goalCheck)).toEqual([]);
    expect(cost(out.segments) / fullSearchCost()).toBeLessThanOrEqual(1.05);
  });
});
