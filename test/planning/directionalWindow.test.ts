/** PLANNER_DIRECTIONAL's window: NO_LEGAL_PATH only when the whole map was searched (issue 11, item 3). */
import { describe, expect, test } from "vitest";
import { directionalSearch, planDirectional, windowAround } from "../../src/planning/directional.ts";
import { PlanBudget } from "../../src/planning/budget.ts";
import { pathCost } from "../../src/motion/pathCost.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkPath, contextOf, layerOf, taskOf } from "../helpers/pathCheck.ts";

/** A w x h room cut by a wall at row `wallY` whose only gap is columns gx0..gx1. */
function wallRows(w: number, h: number, wallY: number, gx0: number, gx1: number): string[] {
  return Array.from({ length: h }, (_, y) =>
    Array.from({ length: w }, (_, x) => {
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) return "@";
      return y === wallY && !(x >= gx0 && x <= gx1) ? "@" : ".";
    }).join(""));
}

const tank = { ...BUILTIN_PROFILES.tank };

/** The 600 x 600 ring world of the state-cap test: a wall next to the start, the goal the other way round. */
function ringRows(W: number): string[] {
  return Array.from({ length: W }, (_, y) =>
    Array.from({ length: W }, (_, x) => {
      const ring = (y >= 2 && y <= 6 && x >= 2 && x <= W - 3) ||
        (x >= W - 7 && x <= W - 3 && y >= 2 && y <= W - 3) ||
        (y >= W - 7 && y <= W - 3 && x >= 2 && x <= W - 3) || (x >= 2 && x <= 6 && y >= 2 && y <= W - 3);
      if (y >= 2 && y <= 6 && x === 300) return "@";
      return ring ? "." : "@";
    }).join(""));
}

describe("directional search window", () => {
  test("a detour outside the first window: the window grows and the path is found", () => {
    // Start and goal 10 tiles apart on either side of a wall whose only gap is 55 tiles to the left, far
    // outside the first window (margin 16 + span / 2 = 21 tiles).
    const layer = layerOf(wallRows(120, 40, 20, 2, 6));
    const start = { x: 60.5, y: 15.5, heading: Math.PI }, goal = { x: 60.5, y: 25.5, heading: 0 };
    const first = windowAround(layer, 60, 15, 60, 25, 32);
    expect(first.x0).toBeGreaterThan(6); // the gap is outside it
    const out = planDirectional(contextOf(layer), taskOf(layer, tank, start, goal, { neighborhood: 24 }));
    expect(out.status).toBe("found");
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
    expect(Math.min(...out.segments.map((s) => s.end.x))).toBeLessThan(first.x0);
  });

  test("no path anywhere on the map: NO_LEGAL_PATH, after searching the whole map", () => {
    // The wall has no gap wide enough for the tank (one tile).
    const layer = layerOf(wallRows(120, 40, 20, 4, 4));
    const start = { x: 60.5, y: 15.5, heading: Math.PI }, goal = { x: 60.5, y: 25.5, heading: 0 };
    const out = planDirectional(contextOf(layer), taskOf(layer, tank, start, goal, { neighborhood: 24 }));
    expect(out.status).toBe("no_legal_path");
  });

  test("a map beyond the window's state cap: the answer says the window limited the search", () => {
    // 600 x 600 tiles is beyond the cap (2^21 states at 32 per tile); the only gap is 280 tiles away, in a
    // 3-tile-wide corridor world (a thin ring of open tiles), so the search exhausts each window quickly.
    const W = 600;
    const rows = Array.from({ length: W }, (_, y) =>
      Array.from({ length: W }, (_, x) => {
        const ring = (y >= 2 && y <= 6 && x >= 2 && x <= W - 3) ||
          (x >= W - 7 && x <= W - 3 && y >= 2 && y <= W - 3) ||
          (y >= W - 7 && y <= W - 3 && x >= 2 && x <= W - 3) || (x >= 2 && x <= 6 && y >= 2 && y <= W - 3);
        // A wall across the top stretch next to the start: the goal is the other way round the ring.
        if (y >= 2 && y <= 6 && x === 300) return "@";
        return ring ? "." : "@";
      }).join(""));
    const layer = layerOf(rows);
    const start = { x: 296.5, y: 4.5, heading: 0 }, goal = { x: 304.5, y: 4.5, heading: 0 };
    const out = planDirectional(
      contextOf(layer),
      taskOf(layer, tank, start, goal, { neighborhood: 24, maxExpansions: 2_000_000 }),
    );
    expect(out.status).not.toBe("no_legal_path");
    if (out.status !== "found") expect(out.message).toMatch(/search window|budget/);
  });

  test("under a cost cap (AUTO) a cheaper path outside the first window is found, not denied", () => {
    const layer = layerOf(wallRows(120, 40, 20, 2, 6));
    const start = { x: 60.5, y: 15.5, heading: Math.PI }, goal = { x: 60.5, y: 25.5, heading: 0 };
    const ctx = contextOf(layer);
    const task = taskOf(layer, tank, start, goal, { neighborhood: 24 });
    const free = planDirectional(ctx, task);
    expect(free.status).toBe("found");
    const cost = pathCost(free.segments, tank, layer).total;
    // A cap above the best cost: the search must reach the far gap (the first window does not).
    const capped = planDirectional(ctx, task, undefined, cost * 1.5);
    expect(capped.status).toBe("found");
    expect(checkPath(layer, tank, capped, start, goal)).toEqual([]);
    expect(pathCost(capped.segments, tank, layer).total).toBeLessThan(cost * 1.5);
  });

  test("under a cost cap below every path: NO_LEGAL_PATH says none cheaper exists, after covering its reach", () => {
    const layer = layerOf(wallRows(120, 40, 20, 2, 6));
    const start = { x: 60.5, y: 15.5, heading: Math.PI }, goal = { x: 60.5, y: 25.5, heading: 0 };
    const ctx = contextOf(layer);
    const task = taskOf(layer, tank, start, goal, { neighborhood: 24 });
    const cost = pathCost(planDirectional(ctx, task).segments, tank, layer).total;
    const capped = planDirectional(ctx, task, undefined, cost * 0.9);
    expect(capped.status).toBe("no_legal_path");
    expect(capped.message).toMatch(
      /no directional path cheaper than [0-9.]+ \(the search covered every tile/,
    );
  });

  test("under a cost cap whose complete window the state cap would cut: the corridor's answer when cheaper", () => {
    const layer = layerOf(ringRows(600));
    const start = { x: 296.5, y: 4.5, heading: 0 }, goal = { x: 304.5, y: 4.5, heading: 0 };
    const task = taskOf(layer, tank, start, goal, { neighborhood: 24, maxExpansions: 2_000_000 });
    const out = planDirectional(contextOf(layer), task, undefined, 100_000);
    expect(out.status).toBe("found");
    expect(out.message).toMatch(/corridor refinement/);
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
    // The way round the ring: about 4 x 590 tiles, below the cap.
    const cost = pathCost(out.segments, tank, layer).total;
    expect(cost).toBeGreaterThan(2000);
    expect(cost).toBeLessThan(100_000);
  });

  test("under a cost cap below the corridor's answer on such a query: budget, a cheaper path not ruled out", () => {
    const layer = layerOf(ringRows(600));
    const start = { x: 296.5, y: 4.5, heading: 0 }, goal = { x: 304.5, y: 4.5, heading: 0 };
    const out = planDirectional(
      contextOf(layer),
      taskOf(layer, tank, start, goal, { neighborhood: 24, maxExpansions: 2_000_000 }),
      undefined,
      1_000,
    );
    expect(out.status).toBe("budget");
    expect(out.segments).toHaveLength(0);
    // Given up part of the way round the ring, once the path so far plus the straight distance left reach the cap.
    expect(out.message).toMatch(
      /corridor refinement: after \d+ windows the path costs \d+\.\d+ with at least/,
    );
    expect(out.message).toMatch(/not less than 1000\.00/);
    expect(out.message).toMatch(/not ruled out/);
  });

  test("a start-goal box beyond the states a workspace may take is not searched, and the answer says so", () => {
    const side = 1500;
    const layer = layerOf(Array.from({ length: side }, () => ".".repeat(side)));
    const start = { x: 3.5, y: 3.5, heading: 0 }, goal = { x: side - 3.5, y: side - 3.5, heading: 0 };
    // The growing-window search alone: 1500^2 tiles x 32 states is beyond the limit.
    const out = directionalSearch(contextOf(layer), layer, { ...tank }, {
      start,
      goal: { ...goal, tolerance: 0.5, headingTolerance: 0.2 },
      neighborhood: 24,
      roadsOnly: false,
      reverse: true,
      maxExpansions: 1_000_000,
    }, new PlanBudget(1_000_000, 30_000, null));
    expect(out.status).toBe("budget");
    expect(out.message).toMatch(/would hold \d+ states .*not ruled out/);
    // The planner takes such a query (its start-goal box is the whole map, never shrunk) along a corridor
    // instead, also under AUTO's cost cap (it used to answer the refusal above).
    const task = taskOf(layer, tank, start, goal, { neighborhood: 24 });
    const planned = planDirectional(contextOf(layer), task, undefined, 1e6);
    expect(planned.status, planned.message).toBe("found");
    expect(planned.message).toMatch(/corridor refinement/);
    expect(checkPath(layer, tank, planned, start, { ...goal, tolerance: 0.5 })).toEqual([]);
  });
});
