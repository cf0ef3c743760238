/** The hybrid compares its candidates by the unit's cost model (issue 11, item 2). */
import { describe, expect, test } from "vitest";
import { dubinsShortest } from "../../src/geometry/dubins.ts";
import { reedsSheppShortest } from "../../src/geometry/reedsShepp.ts";
import type { Pose, Segment } from "../../src/geometry/types.ts";
import { pathCost } from "../../src/motion/pathCost.ts";
import { fitCurves } from "../../src/planning/curveFit.ts";
import { finalSmoothing, newHybridTrace, planHybrid } from "../../src/planning/hybrid.ts";
import { PlanBudget } from "../../src/planning/budget.ts";
import { runPlanTask } from "../../src/planning/plan.ts";
import { gridSearch } from "../../src/planning/gridRoute.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkPath, contextOf, costedLayer, layerOfMap, taskOf } from "../helpers/pathCheck.ts";

/** An open w x h map (blocked border) with a swamp rectangle [x0, x1] x [y0, y1]. */
function swampRows(w: number, h: number, x0: number, y0: number, x1: number, y1: number): string[] {
  return Array.from({ length: h }, (_, y) =>
    Array.from({ length: w }, (_, x) => {
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) return "@";
      return x >= x0 && x <= x1 && y >= y0 && y <= y1 ? "s" : ".";
    }).join(""));
}

const tank = { ...BUILTIN_PROFILES.tank };

describe("hybrid: candidates by cost", () => {
  test("README demo query: the tank drives forward when a forward path is cheaper than backing up", () => {
    const layer = layerOfMap(Deno.readTextFileSync(new URL("../../demo/maps/yard.map", import.meta.url)));
    const ctx = contextOf(layer);
    const start = { x: 25.5, y: 3.5, heading: 0 }, goal = { x: 50.5, y: 55.5, heading: Math.PI / 2 };
    const auto = runPlanTask(ctx, taskOf(layer, tank, start, goal, { planner: "hybrid" }), null);
    expect(auto.status).toBe("found");
    expect(checkPath(layer, tank, auto, start, goal)).toEqual([]);
    const dir = runPlanTask(ctx, taskOf(layer, tank, start, goal, { planner: "directional" }), null);
    expect(dir.status).toBe("found");
    const a = pathCost(auto.segments, tank, layer), d = pathCost(dir.segments, tank, layer);
    // Before: 18.5 tiles backed up, two cusps, cost 88.8 against DIRECTIONAL's forward 61.0.
    expect(a.reverseLength).toBe(0);
    expect(a.cusps).toBe(0);
    expect(a.total).toBeLessThanOrEqual(d.total * 1.05);
  });

  test("the straight curve through a swamp is not the answer when the way around costs less", () => {
    const layer = costedLayer(swampRows(32, 25, 11, 7, 20, 17), 20);
    const start = { x: 4.5, y: 12.5, heading: 0 }, goal = { x: 27.5, y: 12.5, heading: 0 };
    const trace = newHybridTrace();
    const out = planHybrid(
      contextOf(layer),
      taskOf(layer, tank, start, goal, { planner: "hybrid" }),
      undefined,
      {
        trace,
      },
    );
    expect(out.status).toBe("found");
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
    const straight = dubinsShortest(start, goal, tank.turningRadius).segments;
    const direct = pathCost(straight, tank, layer).total; // 23 tiles, 10 of them at cost 20: 213
    const got = pathCost(out.segments, tank, layer).total;
    expect(out.message).not.toBe("shortest curve straight to the goal");
    expect(got).toBeLessThan(direct * 0.5);
  });

  test("final smoothing replaces a stretch only by a curve that costs less", () => {
    const layer = costedLayer(swampRows(30, 24, 9, 5, 20, 15), 20);
    // A detour below the swamp, all forward: (5.5, 10.5) -> (10, 19.5) -> (20, 19.5) -> (24.5, 10.5).
    const poses: Pose[] = [
      { x: 5.5, y: 10.5, heading: Math.PI / 2 },
      { x: 10, y: 19.5, heading: 0 },
      { x: 20, y: 19.5, heading: 0 },
      { x: 24.5, y: 10.5, heading: -Math.PI / 2 },
    ];
    const segs: Segment[] = [];
    for (let i = 0; i + 1 < poses.length; i++) {
      const from = segs.length > 0 ? segs[segs.length - 1].end : poses[0];
      for (const s of dubinsShortest(from, poses[i + 1], tank.turningRadius).segments) segs.push(s);
    }
    const before = pathCost(segs, tank, layer).total;
    const task = taskOf(layer, tank, poses[0], poses[3], { planner: "hybrid" });
    const out = finalSmoothing(layer, task, segs, false);
    const after = pathCost(out, tank, layer).total;
    // The shortest curve from the first pose to the last cuts through the swamp: shorter, but dearer.
    const shortcut =
      pathCost(dubinsShortest(poses[0], poses[3], tank.turningRadius).segments, tank, layer).total;
    expect(shortcut).toBeGreaterThan(before);
    expect(after).toBeLessThanOrEqual(before + 1e-9);
  });

  test("curve fitting backs up first only when that costs less by the cost model, terrain included", () => {
    // Goal 2 tiles straight behind the start, same heading: backing up is far shorter than a loop, but the
    // two tiles behind are a cost-20 swamp, so the forward loop (mostly over open ground) costs less.
    const layer = costedLayer(swampRows(30, 30, 8, 10, 10, 10), 20);
    const w = layer.width;
    const fit = (l = layer) =>
      fitCurves({
        layer: l,
        unit: tank,
        path: Int32Array.of(10 * w + 10, 10 * w + 9, 10 * w + 8),
        smoothed: Float64Array.of(10.5, 10.5, 8.5, 10.5),
        start: { x: 10.5, y: 10.5, heading: 0 },
        goal: { x: 8.5, y: 10.5, heading: 0 },
        check: true,
        tighterTurns: false,
        backingUp: true,
        budget: new PlanBudget(0, 10000, null),
      });
    const costed = fit();
    expect(costed.status).toBe("found");
    if (costed.status !== "found") return;
    expect(costed.segments.every((q) => q.direction === 1)).toBe(true);
    const back = reedsSheppBack();
    expect(pathCost(costed.segments, tank, layer).total).toBeLessThan(pathCost(back, tank, layer).total);
    // On open ground the same query backs up (cheaper there).
    const open = costedLayer(swampRows(30, 30, 0, 0, -1, -1), 20);
    const plain = fit(open);
    expect(plain.status === "found" && plain.segments.some((q) => q.direction < 0)).toBe(true);
  });
});

function reedsSheppBack(): Segment[] {
  return reedsSheppShortest(
    { x: 10.5, y: 10.5, heading: 0 },
    { x: 8.5, y: 10.5, heading: 0 },
    tank.turningRadius,
  )
    .segments;
}

describe("hybrid: a fit that backs up is its answer (AUTO's portfolio weighs it)", () => {
  test("no second grid route: the yard pair's 8-connected fit backs up and is returned as it is", () => {
    const layer = layerOfMap(Deno.readTextFileSync(new URL("../../demo/maps/yard.map", import.meta.url)));
    const ctx = contextOf(layer);
    const start = { x: 20.5, y: 19.5, heading: -Math.PI / 2 },
      goal = { x: 24.5, y: 32.5, heading: Math.PI / 2 };
    const task = taskOf(layer, tank, start, goal, { planner: "hybrid" });
    const trace = newHybridTrace();
    const out = planHybrid(ctx, task, undefined, { trace });
    expect(out.status).toBe("found");
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
    expect(out.segments.some((s) => s.direction < 0)).toBe(true);
    expect(trace.fitted).toBe(8);
    // Only the 8-connected route was searched (a 4-connected one tripled the parking bench's expansions).
    const grid8 = gridSearch(ctx, layer, task, 8, new PlanBudget(0, 10000, null));
    expect(out.expansions).toBe(grid8.expansions);
  });
});
