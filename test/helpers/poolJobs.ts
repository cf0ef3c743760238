/**
 * Jobs for the worker-pool tests: a small open map with a quick grid task, and a 1500 x 1500 map whose goal is
 * walled off, so a 4-connected search there runs until its budget or a cancel stops it.
 *
 * @module
 */
import { expect } from "vitest";
import type { SharedData } from "../../src/service/pool.ts";
import { ServiceError } from "../../src/service/errors.ts";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { type PlanTask, planTask } from "../../src/planning/task.ts";
import { AGENT } from "../../src/units/profiles.ts";

/** A `size` x `size` open map; with `wall`, a full-height wall at x = size - 2 cuts off the last column. */
function openMap(size: number, wall: boolean): PassLayer {
  const tiles = new Uint8Array(size * size).fill(".".charCodeAt(0));
  if (wall) { for (let y = 0; y < size; y++) tiles[y * size + size - 2] = "@".charCodeAt(0); }
  return buildPassLayer({ width: size, height: size, tiles }, movingAiTerrain());
}

/** The small map's shared data (key "small"). */
export const SMALL: SharedData[] = [{ key: "small", data: openMap(32, false) }];
/** The big walled map's shared data (key "big"). */
export const BIG: SharedData[] = [{ key: "big", data: openMap(1500, true) }];

/** A grid task on the small map that finds its path at once. */
export function quickTask(): PlanTask {
  return planTask({
    planner: "grid",
    layerKey: "small",
    width: 32,
    unit: AGENT,
    start: { x: 1.5, y: 1.5, heading: 0 },
    goal: { x: 30.5, y: 20.5 },
  });
}

/** A 4-connected search toward the big map's walled-off goal, stopped only by `ms` or a cancel. */
export function slowTask(ms = 60_000): PlanTask {
  return planTask({
    planner: "grid",
    layerKey: "big",
    width: 1500,
    unit: AGENT,
    start: { x: 0.5, y: 0.5, heading: 0 },
    goal: { x: 1499.5, y: 0.5 },
  }, { neighborhood: 4, maxExpansions: 1e9, maxMillis: ms });
}

/** The ServiceError a job fails with (the test fails if it succeeds or throws anything else). */
export async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error("expected the job to fail");
}
