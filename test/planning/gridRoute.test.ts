/**
 * Grid routes shared within one task (src/planning/gridRoute.ts, PlanContext.sharingRoutes): AUTO's hybrid,
 * capped directional search and forward CURVED fit ask for the same 4-connected route; inside sharingRoutes the
 * second search takes the first's complete answer without expansions, outside it every call searches, and
 * a partial (budget-cut) answer is never reused. The hybrid's corridor refinement is shared the same way with
 * AUTO's capped Directional search of the same corridor.
 */
import { describe, expect, test } from "vitest";
import { planAuto } from "../../src/planning/auto.ts";
import { PlanBudget } from "../../src/planning/budget.ts";
import { corridorKey, type DirectionalRun, planDirectional } from "../../src/planning/directional.ts";
import { gridSearch } from "../../src/planning/gridRoute.ts";
import type { Segment } from "../../src/geometry/types.ts";
import { pathCost } from "../../src/motion/pathCost.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { contextOf, doorRows, layerOf, taskOf } from "../helpers/pathCheck.ts";

const tank = { ...BUILTIN_PROFILES.tank };
const layer = layerOf(doorRows());
const start = { x: 3.5, y: 3.5, heading: 0 };
const goal = { x: layer.width - 3.5, y: layer.height - 3.5 };
const big = () => new PlanBudget(1_000_000, 60_000, null);

describe("grid routes shared within one task", () => {
  test("outside sharingRoutes every search expands", () => {
    const ctx = contextOf(layer);
    const task = taskOf(layer, tank, start, goal);
    const a = gridSearch(ctx, layer, task, 4, big());
    const b = gridSearch(ctx, layer, task, 4, big());
    expect(a.status).toBe("found");
    expect(a.expansions).toBeGreaterThan(0);
    expect(b.expansions).toBe(a.expansions);
    expect(ctx.routes).toBeNull();
  });

  test("inside, the same route is searched once; another neighbourhood or goal is its own route", () => {
    const ctx = contextOf(layer);
    const task = taskOf(layer, tank, start, goal);
    ctx.sharingRoutes(() => {
      const a = gridSearch(ctx, layer, task, 4, big());
      const b = gridSearch(ctx, layer, task, 4, big());
      expect(a.status).toBe("found");
      expect(a.expansions).toBeGreaterThan(0);
      expect(b.status).toBe("found");
      expect(b.expansions).toBe(0);
      expect(Array.from(b.path!)).toEqual(Array.from(a.path!));
      expect(gridSearch(ctx, layer, task, 8, big()).expansions).toBeGreaterThan(0);
      const near = taskOf(layer, tank, start, { x: 10.5, y: 3.5 });
      expect(gridSearch(ctx, layer, near, 4, big()).expansions).toBeGreaterThan(0);
      // Another layer under the same key (a patched version, say) is searched, not answered from the first.
      expect(gridSearch(ctx, layerOf(doorRows()), task, 4, big()).expansions).toBeGreaterThan(0);
    });
    expect(ctx.routes).toBeNull();
  });

  test("a budget-cut route is not reused: the next search with budget finds the whole route", () => {
    const ctx = contextOf(layer);
    const task = taskOf(layer, tank, start, goal);
    ctx.sharingRoutes(() => {
      const cut = gridSearch(ctx, layer, task, 4, new PlanBudget(5, 60_000, null));
      expect(cut.status).toBe("budget");
      const whole = gridSearch(ctx, layer, task, 4, big());
      expect(whole.status).toBe("found");
      expect(whole.expansions).toBeGreaterThan(5);
    });
  });

  test("the routes are dropped when the task throws, and after AUTO", () => {
    const ctx = contextOf(layer);
    expect(() =>
      ctx.sharingRoutes(() => {
        throw new Error("boom");
      })
    ).toThrow("boom");
    expect(ctx.routes).toBeNull();
    const task = { ...taskOf(layer, tank, start, goal), planner: "hybrid" as const, portfolio: true };
    const out = planAuto(ctx, task, big());
    expect(out.status).toBe("found");
    expect(ctx.routes).toBeNull();
  });
});

describe("a corridor refined once per task", () => {
  /** A 2600 x 24 walled strip: long enough that a directional search window around start and goal is capped. */
  const strip = layerOf(
    Array.from(
      { length: 24 },
      (_, y) =>
        Array.from({ length: 2600 }, (_, x) => (x === 0 || y === 0 || x === 2599 || y === 23 ? "@" : "."))
          .join(""),
    ),
  );
  const longTask = taskOf(strip, tank, { x: 3.5, y: 12.5, heading: 0 }, { x: 2590.5, y: 12.5 }, {
    maxExpansions: 2_000_000,
    maxMillis: 60_000,
  });
  const budget = () => new PlanBudget(2_000_000, 60_000, null);

  test("a capped DIRECTIONAL takes the corridor answer the hybrid left in the task's routes", () => {
    const ctx = contextOf(strip);
    const plain = planDirectional(ctx, longTask, budget());
    expect(plain.status).toBe("found");
    expect(plain.message).toMatch(/corridor refinement/);
    const cost = pathCost(plain.segments, tank, strip).total;
    // Without sharing the capped search refines the corridor itself.
    const alone = planDirectional(ctx, longTask, budget(), cost + 1);
    expect(alone.status).toBe("found");
    // The strip's route is long (LONG_ROUTE_TILES): the corridor is the 8-connected route (jump points).
    const grid = gridSearch(ctx, strip, longTask, 8, budget()).expansions;
    expect(alone.expansions).toBeGreaterThan(grid);
    ctx.sharingRoutes(() => {
      const known = { ...directionalRunOf(plain), message: "known corridor" };
      ctx.routes!.set(corridorKey(longTask, 24, true), known);
      const capped = planDirectional(ctx, longTask, budget(), cost + 1);
      expect(capped.status).toBe("found");
      expect(capped.message).toMatch(/^known corridor/);
      // Only the grid route was searched.
      expect(capped.expansions).toBe(grid);
    });
  });
});

/** A DirectionalRun carrying an outcome's path (what the hybrid's corridor step stores). */
function directionalRunOf(out: { segments: Segment[]; expansions: number }): DirectionalRun {
  return {
    status: "found",
    segments: out.segments,
    tiles: [],
    expansions: out.expansions,
    tables: { source: "none", millis: 0, key: "" },
    message: "",
  };
}
