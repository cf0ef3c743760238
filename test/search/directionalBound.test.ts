/**
 * Directional A* speed work kept honest: the obstacle-aware grid bound never exceeds the optimal cost found
 * (empirical admissibility through doors), and skipping successors already reached at no more cost (the
 * workspace hook) changes neither the cost nor the expansions of a search, and repeated searches agree.
 */
import { describe, expect, test } from "vitest";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { directionalSearch, gridBound, windowAround } from "../../src/planning/directional.ts";
import { astar, newSearchResult, SearchWorkspace } from "../../src/search/astar.ts";
import { DirectionalSpace } from "../../src/search/directionalSpace.ts";
import { directionalSetupOf } from "../helpers/directionalSetup.ts";
import { contextOf, doorRows, layerOf } from "../helpers/pathCheck.ts";
import { PlanBudget } from "../../src/planning/budget.ts";
import { tileClearance } from "../../src/maps/grid.ts";

let seed = 12345;
function rand(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}

describe("directional grid bound", () => {
  test("never above the optimal cost from the start tile (random queries through doors)", () => {
    const layer = layerOf(doorRows());
    const ctx = contextOf(layer);
    const tank = { ...BUILTIN_PROFILES.tank };
    let checked = 0;
    let informative = 0;
    for (let i = 0; i < 30; i++) {
      const sx = 2 + Math.floor(rand() * 9), sy = 2 + Math.floor(rand() * 36);
      const gx = 29 + Math.floor(rand() * 9), gy = 2 + Math.floor(rand() * 36);
      if (
        tileClearance(layer, sy * layer.width + sx) < 1.5 || tileClearance(layer, gy * layer.width + gx) < 1.5
      ) {
        continue;
      }
      const start = { x: sx + 0.5, y: sy + 0.5, heading: Math.floor(rand() * 16) * Math.PI / 8 };
      const goal = { x: gx + 0.5, y: gy + 0.5, tolerance: 0.5, headingTolerance: 0.2 };
      const run = directionalSearch(ctx, layer, tank, {
        start,
        goal,
        neighborhood: 24,
        roadsOnly: false,
        reverse: true,
        maxExpansions: 100000,
      }, new PlanBudget(0, 0, null));
      if (run.status !== "found") continue;
      const optimal = ctx.result.cost;
      const window = windowAround(layer, sx, sy, gx, gy, 32);
      const bound = gridBound(ctx, layer, window, gy * layer.width + gx, false);
      const b = bound[sy * layer.width + sx];
      expect(b).toBeLessThanOrEqual(optimal);
      // The bound must carry information beyond the straight line for some of these (walls in between).
      if (b > 0) informative++;
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
    expect(informative).toBeGreaterThan(5);
  });
});

describe("successor skipping", () => {
  test("the workspace hook changes neither cost nor expansions", () => {
    const layer = layerOf(doorRows());
    const tank = { ...BUILTIN_PROFILES.tank };
    const ctx = contextOf(layer);
    const ws = new SearchWorkspace();
    const space = new DirectionalSpace();
    for (const [sx, sy, gx, gy] of [[4, 4, 34, 34], [5, 30, 33, 6], [8, 19, 20, 19]]) {
      const window = windowAround(layer, sx, sy, gx, gy, 32);
      const bound = gridBound(ctx, layer, window, gy * layer.width + gx, false);
      const runOnce = (hook: boolean) => {
        space.configure(directionalSetupOf(tank, layer, window, [sx, sy, gx, gy], { gridBound: bound }));
        if (hook) space.useWorkspace(ws);
        const r = astar(space, ws, [space.snappedStart], {
          maxExpansions: 100000,
          deadline: Infinity,
          cancel: null,
          trackNearest: false,
        }, newSearchResult());
        return { status: r.status, cost: r.cost, expansions: r.expansions };
      };
      const plain = runOnce(false);
      const hooked = runOnce(true);
      expect(plain.status).toBe("found");
      expect(hooked).toEqual(plain);
      // Repeated searches on the reused space and workspace agree (no state leaks from one to the next; a
      // repeated successor id once corrupted the core's heap through stale positions).
      expect(runOnce(false)).toEqual(plain);
      expect(runOnce(true)).toEqual(plain);
    }
  });
});
