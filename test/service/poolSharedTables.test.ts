/**
 * Read-only tables built once and shared: a preparation deals the region tables out to the workers, each
 * builds its abstract graph and jump tables once and publishes them over shared memory; the other workers adopt
 * them (no second build), answer exactly as a worker that built its own, and forget them with their layer.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WorkerPool } from "../../src/service/pool.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { builtinClasses, SECTOR_SIZE } from "../../src/service/mapLayers.ts";
import { PlanContext } from "../../src/planning/context.ts";
import { runPlanTask } from "../../src/planning/plan.ts";
import { type PlannerName, type PlanTask, planTask } from "../../src/planning/task.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { mapText, queries } from "../helpers/movingai.ts";
import { hasJumpTables } from "../../src/search/jumpPointSpace.ts";

const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };

describe("tables shared between workers", () => {
  let pool: WorkerPool;
  const published: [string, number][] = [];
  const layer: PassLayer = buildPassLayer(
    parseMovingAi(mapText("Berlin_0_256.map"), LIMITS),
    movingAiTerrain(),
  );
  const shared = [{ key: "L", data: layer as unknown }];
  for (const cls of builtinClasses()) {
    shared.push({ key: `L/${cls}`, data: buildRegionTable(layer, cls, SECTOR_SIZE) });
  }
  // A twin of the same map for in-process answers from tables built here (not adopted from the workers).
  const twin: PassLayer = buildPassLayer(
    parseMovingAi(mapText("Berlin_0_256.map"), LIMITS),
    movingAiTerrain(),
  );
  const lookup = new Map<string, unknown>([["L", twin]]);
  for (const cls of builtinClasses()) lookup.set(`L/${cls}`, buildRegionTable(twin, cls, SECTOR_SIZE));

  beforeAll(() => {
    pool = new WorkerPool({ size: 2, maxQueue: 16 });
    pool.onPublish((layerKey, bytes) => published.push([layerKey, bytes]));
  });
  afterAll(() => pool.close());

  function task(planner: PlannerName, unit: "agent" | "tank", from: [number, number], to: [number, number]) {
    const t: PlanTask = planTask({
      planner,
      layerKey: "L",
      width: layer.width,
      unit: BUILTIN_PROFILES[unit],
      start: { x: from[0] + 0.5, y: from[1] + 0.5, heading: 0 },
      goal: { x: to[0] + 0.5, y: to[1] + 0.5 },
    }, { maxMillis: 60_000 });
    t.regionKey = `L/${t.clearance}`;
    return t;
  }

  test("a preparation builds each table once and every worker answers from them as from its own", async () => {
    const regionKeys = builtinClasses().map((c) => `L/${c}`);
    const bytes = await pool.prepare(shared, "L", regionKeys);
    // Per class: the abstract graph with its landmarks and the jump tables (Berlin is uniform-cost).
    expect(pool.publishedKeys.filter((k) => k.includes("#graph/")).length).toBe(regionKeys.length);
    expect(pool.publishedKeys.filter((k) => k.includes("#jumps/")).length).toBe(regionKeys.length);
    expect(published.length).toBe(2 * regionKeys.length);
    expect(bytes).toBe(published.reduce((n, [, b]) => n + b, 0));
    expect(bytes).toBeGreaterThan(256 * 256);
    // This thread (the service's inline lane) adopted the jump tables too.
    for (const cls of builtinClasses()) expect(hasJumpTables(layer, cls)).toBe(true);

    // Both workers busy at once, each on queries needing every table: nothing is built a second time, and the
    // answers equal those of a context that built its own tables.
    const ctx = new PlanContext((k) => lookup.get(k));
    const tasks: PlanTask[] = [];
    const longest = queries("Berlin_0_256.map").sort((a, b) => b.optimal - a.optimal).slice(0, 3);
    for (const unit of ["agent", "tank"] as const) {
      for (const planner of ["grid", "hierarchical"] as const) {
        for (const q of longest) tasks.push(task(planner, unit, [q.sx, q.sy], [q.gx, q.gy]));
      }
    }
    const answers = await Promise.all(tasks.map((t) => pool.run(t, shared)));
    expect(pool.duplicateBuilds).toBe(0);
    expect(published.length).toBe(2 * regionKeys.length);
    let found = 0;
    for (const [i, t] of tasks.entries()) {
      const own = runPlanTask(ctx, t, null);
      if (own.status === "found") found++;
      expect(answers[i].value.status).toBe(own.status);
      expect(answers[i].value.length).toBe(own.length);
      expect(answers[i].value.waypoints).toEqual(own.waypoints);
    }
    expect(found).toBeGreaterThanOrEqual(tasks.length / 2);
  });

  test("the published tables go with their layer", () => {
    expect(pool.publishedKeys.length).toBeGreaterThan(0);
    pool.forget(["L"]);
    expect(pool.publishedKeys).toEqual([]);
    for (const cls of builtinClasses()) expect(hasJumpTables(layer, cls)).toBe(false);
  });
});
