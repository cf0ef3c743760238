/**
 * Jump table builds under a stop condition: a stopped build keeps its rows and the next call goes on; the
 * finished tables equal an uninterrupted build's. A context that may not build them on a map answers "budget"
 * until it has them (adopted from another thread), then the same answer as a context that built its own.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import { type PassLayer, sharedArray } from "../../src/maps/grid.ts";
import {
  adoptJumpTables,
  hasJumpTables,
  straightJumps,
  straightJumpsUntil,
} from "../../src/search/jumpPointSpace.ts";
import { PlanContext } from "../../src/planning/context.ts";
import { runPlanTask } from "../../src/planning/plan.ts";
import { planTask } from "../../src/planning/task.ts";
import { AGENT } from "../../src/units/profiles.ts";

function layerOf(side: number): PassLayer {
  const tiles = sharedArray(Uint8Array, side * side).fill(46);
  let s = 5;
  for (let i = 0; i < tiles.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    if (s % 100 < 10) tiles[i] = 64;
  }
  // Open corners for the queries' ends.
  for (let y = 0; y < 4; y++) {
    for (let x = 0; x < 4; x++) {
      tiles[y * side + x] = 46;
      tiles[(side - 1 - y) * side + side - 1 - x] = 46;
    }
  }
  return buildPassLayer({ width: side, height: side, tiles }, movingAiTerrain());
}

describe("resumable jump table builds", () => {
  test("a build stopped many times finishes with the uninterrupted build's tables", () => {
    const side = 700;
    const layer = layerOf(side);
    let stops = 0;
    let tables = null;
    for (let calls = 0; tables === null; calls++) {
      expect(calls).toBeLessThan(100);
      expect(hasJumpTables(layer, 1)).toBe(false);
      let polls = 0;
      // Stop at the second poll of each call: a few hundred rows a call.
      tables = straightJumpsUntil(layer, 1, () => ++polls >= 2);
      if (tables === null) stops++;
    }
    expect(stops).toBeGreaterThan(3);
    expect(hasJumpTables(layer, 1)).toBe(true);
    const whole = straightJumps(layerOf(side), 1);
    expect(tables.east).toEqual(whole.east);
    expect(tables.west).toEqual(whole.west);
    expect(tables.south).toEqual(whole.south);
    expect(tables.north).toEqual(whole.north);
  });

  test("without leave to build, a grid query answers budget until the tables are adopted", () => {
    const side = 200;
    const layer = layerOf(side);
    const task = planTask({
      planner: "grid",
      layerKey: "L",
      width: side,
      unit: AGENT,
      start: { x: 0.5, y: 0.5, heading: 0 },
      goal: { x: side - 1.5, y: side - 1.5 },
    });
    const ctx = new PlanContext((k) => (k === "L" ? layer : undefined));
    ctx.maxBuildTiles = 0;
    expect(runPlanTask(ctx, task, null).status).toBe("budget");
    // Tables another thread built (over shared memory) for an equal layer.
    const twin = layerOf(side);
    const own = runPlanTask(new PlanContext((k) => (k === "L" ? twin : undefined)), task, null);
    adoptJumpTables(layer, task.clearance, straightJumps(twin, task.clearance));
    const adopted = runPlanTask(ctx, task, null);
    expect(own.status).toBe("found");
    expect(adopted.status).toBe("found");
    expect(adopted.length).toBe(own.length);
    expect(adopted.waypoints).toEqual(own.waypoints);
  });
});
