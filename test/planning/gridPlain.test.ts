/**
 * Plain A* while a layer's jump tables are built elsewhere (PlanTask.jumpsPending, gridRoute.ts): an
 * 8-connected search that does not hold the tables searches tile by tile instead of building them, finds a path
 * of the same optimal length as the jump-point search, and GRID's answer carries the note; once the tables are
 * held, the same task uses them.
 */
import { describe, expect, test } from "vitest";
import { PlanBudget } from "../../src/planning/budget.ts";
import { gridSearch } from "../../src/planning/gridRoute.ts";
import { planGridOrSmooth } from "../../src/planning/gridPlanner.ts";
import { gridPathLength } from "../../src/search/gridSpace.ts";
import { hasJumpTables, straightJumps } from "../../src/search/jumpTables.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { contextOf, layerOf, taskOf } from "../helpers/pathCheck.ts";
import { tiledRoomRows } from "../helpers/tiledMap.ts";

const soldier = { ...BUILTIN_PROFILES.soldier };
const big = () => new PlanBudget(10_000_000, 60_000, null);
const NOTE = "jump tables being built (test)";

describe("plain A* while jump tables are pending", () => {
  test("same optimal length as jump points on several pairs; tables not built by the search", () => {
    const layer = layerOf(tiledRoomRows(4, 4)); // 128 x 128, a layer of its own: no tables yet
    const ctx = contextOf(layer);
    const goals = [[120.5, 120.5], [100.5, 20.5], [20.5, 110.5], [60.5, 60.5]];
    const tasks = goals.map(([gx, gy]) =>
      taskOf(layer, soldier, { x: 5.5, y: 5.5, heading: 0 }, { x: gx, y: gy }, {
        planner: "grid",
        jumpsPending: NOTE,
      })
    );
    // Every plain search first: the first jump-point search builds the tables for the layer.
    const plains = tasks.map((task) => gridSearch(ctx, layer, task, 8, big()));
    for (const [i, plain] of plains.entries()) {
      expect(plain.status).toBe("found");
      expect(plain.plain).toBe(true);
      expect(hasJumpTables(layer, tasks[i].clearance)).toBe(false);
    }
    for (const [i, task] of tasks.entries()) {
      const jps = gridSearch(ctx, layer, { ...task, jumpsPending: undefined }, 8, big());
      expect(jps.status).toBe("found");
      expect(jps.plain).toBeUndefined();
      expect(gridPathLength(layer, plains[i].path!, layer.width)).toBeCloseTo(
        gridPathLength(layer, jps.path!, layer.width),
        9,
      );
      expect(jps.expansions).toBeLessThan(plains[i].expansions);
    }
  });

  test("GRID's answer carries the note; with the tables held the note goes and jump points answer", () => {
    const layer = layerOf(tiledRoomRows(4, 4));
    const ctx = contextOf(layer);
    const task = taskOf(layer, soldier, { x: 5.5, y: 5.5, heading: 0 }, { x: 120.5, y: 120.5 }, {
      planner: "grid",
      neighborhood: 8,
      jumpsPending: NOTE,
    });
    const before = planGridOrSmooth(ctx, task, big());
    expect(before.status).toBe("found");
    expect(before.message).toBe(NOTE);
    straightJumps(layer, task.clearance); // as adopting the published tables would
    const after = planGridOrSmooth(ctx, task, big());
    expect(after.status).toBe("found");
    expect(after.message).toBe("");
    expect(after.length).toBeCloseTo(before.length, 9);
    expect(after.expansions).toBeLessThan(before.expansions);
  });
});
