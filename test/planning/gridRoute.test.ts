/**
 * Grid routes shared within one task (src/planning/gridRoute.ts, PlanContext.sharingRoutes): AUTO's hybrid,
 * capped directional search and forward CURVED fit ask for the same 4-connected route; inside sharingRoutes the
 * second search takes the first's complete answer without expansions, outside it every call searches, and
 * a partial (budget-cut) answer is never reused.
 */
import { describe, expect, test } from "vitest";
import { planAuto } from "../../src/planning/auto.ts";
import { PlanBudget } from "../../src/planning/budget.ts";
import { gridSearch } from "../../src/planning/gridRoute.ts";
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
