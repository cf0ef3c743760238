/**
 * A GRID query whose budget runs out while the worker builds the map's jump tables (a one-off, resumed by the
 * next query) answers BUDGET naming the tables, not "before any progress"; the query that finds them built
 * answers.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import { sharedArray } from "../../src/maps/grid.ts";
import { PlanContext } from "../../src/planning/context.ts";
import { PlanBudget } from "../../src/planning/budget.ts";
import { planGridOrSmooth } from "../../src/planning/gridPlanner.ts";
import { planTask } from "../../src/planning/task.ts";
import { AGENT } from "../../src/units/profiles.ts";

describe("GRID budget while jump tables build", () => {
  test("names the jump tables, and the next query with a budget answers", () => {
    const side = 600;
    const tiles = sharedArray(Uint8Array, side * side).fill(46);
    const layer = buildPassLayer({ width: side, height: side, tiles }, movingAiTerrain());
    const task = planTask({
      planner: "grid",
      layerKey: "L",
      width: side,
      unit: AGENT,
      start: { x: 0.5, y: 0.5, heading: 0 },
      goal: { x: side - 0.5, y: side - 1.5 },
    });
    const ctx = new PlanContext((k) => (k === "L" ? layer : undefined));
    // A deadline already past: the build stops at its first check.
    const stopped = planGridOrSmooth(ctx, task, new PlanBudget(1e9, 1, null, performance.now() - 10));
    expect(stopped.status).toBe("budget");
    expect(stopped.message).toMatch(
      /while preparing this map version's jump tables for clearance class 0\.5/,
    );
    const found = planGridOrSmooth(ctx, task, new PlanBudget(1e9, 60_000, null));
    expect(found.status).toBe("found");
  });
});
