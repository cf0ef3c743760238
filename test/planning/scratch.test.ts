/**
 * Per-worker query scratch let go between tasks (src/planning/scratch.ts): after a release every holder above
 * the keep size is empty, the next queries regrow what they need and answer exactly as before, and a release
 * with a keep size above what is held lets nothing go.
 */
import { describe, expect, test } from "vitest";
import { releaseScratch } from "../../src/planning/scratch.ts";
import { runPlanTask } from "../../src/planning/plan.ts";
import type { PlannerName } from "../../src/planning/task.ts";
import {
  astar,
  newSearchResult,
  reconstructPath,
  SearchWorkspace,
  unlimited,
} from "../../src/search/astar.ts";
import { GridSpace } from "../../src/search/gridSpace.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { contextOf, doorRows, layerOf, taskOf } from "../helpers/pathCheck.ts";

describe("query scratch released between tasks", () => {
  test("directional, hybrid and grid answers are unchanged after a release; the held scratch goes", () => {
    const layer = layerOf(doorRows());
    const ctx = contextOf(layer);
    const answer = (planner: PlannerName) => {
      const task = taskOf(
        layer,
        BUILTIN_PROFILES.tank,
        { x: 4.5, y: 4.5, heading: 0 },
        { x: 35.5, y: 34.5 },
        {
          planner,
          maxMillis: 60_000,
        },
      );
      const out = runPlanTask(ctx, task, null);
      expect(out.status).toBe("found");
      return JSON.stringify([out.status, out.cost, out.segments, out.expansions]);
    };
    const planners: PlannerName[] = ["directional", "hybrid", "grid"];
    const first = planners.map(answer);
    // Nothing above 1 GB: nothing goes.
    expect(releaseScratch(ctx, 1 << 30)).toBe(0);
    // Keep nothing: the workspace, raster, heuristic cache, bounds and the hybrid's mask all go.
    const freed = releaseScratch(ctx, 0);
    expect(freed).toBeGreaterThan(40 * 40 * 32);
    expect(ctx.workspace.g.length).toBe(0);
    expect(releaseScratch(ctx, 0)).toBeLessThan(freed);
    expect(planners.map(answer)).toEqual(first);
  });

  test("a paged workspace lets go of its page pool and page table and searches on the same", () => {
    const layer = layerOf(doorRows());
    // Paged above 64 states: the 40 x 40 layer is searched with pages.
    const ws = new SearchWorkspace(64);
    const grid = new GridSpace();
    const run = () => {
      const goal = 38 + 40 * 38;
      const r = astar(grid.configure(layer, 0, 8, goal), ws, [1 + 40 * 1], unlimited(), newSearchResult());
      return [r.goal, r.expansions, ws.gOf(goal), Array.from(reconstructPath(ws, goal))];
    };
    const before = run();
    expect(ws.paged).toBe(true);
    const held = ws.pages.bytes;
    expect(ws.release(0)).toBeGreaterThan(0);
    expect(ws.pages.bytes).toBeLessThan(held);
    expect(run()).toEqual(before);
  });
});
