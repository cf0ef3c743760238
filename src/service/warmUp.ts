/**
 * Worker warm-up: before its first job a worker runs each planner a few times on a small synthetic yard, so
 * that the first real requests do not pay for compiling the planning code. Measured here (server-side time of
 * the first request on a fresh server): a directional request 113 ms cold, 65 ms after warm-up; a hybrid one
 * 9 ms and 4 ms. The synthetic layer is private to the warm-up and dropped afterwards.
 *
 * @module
 */
import { buildPassLayer } from "../maps/layer.ts";
import { movingAiTerrain } from "../maps/terrain.ts";
import { type PassLayer } from "../maps/grid.ts";
import { BUILTIN_PROFILES } from "../units/profiles.ts";
import { type UnitSpec } from "../units/unit.ts";
import { tableProfileOf } from "../planning/directional.ts";
import { runPlanTask } from "../planning/plan.ts";
import { PlanContext } from "../planning/context.ts";
import { type PlannerName, type PlanTask, planTask } from "../planning/task.ts";
import type { DirectionalTableSource } from "../planning/tableSource.ts";
import type { DirectionalNeighborhood } from "../search/directionTable.ts";
import type { TableProfile } from "../search/hitCheckTable.ts";
import { tableStore } from "./directionalTables.ts";

/** A 40x40 yard with a wall, a pillar and a doorway: every planner takes its slow and its fast paths here. */
function warmUpLayer(): PassLayer {
  const size = 40;
  const tiles = new Uint8Array(size * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const border = x === 0 || y === 0 || x === size - 1 || y === size - 1;
      const wall = x === 20 && !(y >= 17 && y <= 21);
      const pillar = x >= 8 && x <= 11 && y >= 8 && y <= 11;
      tiles[y * size + x] = (border || wall || pillar ? "@" : ".").charCodeAt(0);
    }
  }
  return buildPassLayer({ width: size, height: size, tiles }, movingAiTerrain());
}

function warmUpTask(
  layer: PassLayer,
  unit: UnitSpec,
  planner: PlannerName,
  sx: number,
  sy: number,
  gx: number,
  gy: number,
) {
  // The directional run is the process's first directional search, so it also pays for compiling that code
  // (over 200 ms on a loaded machine, which cut it short): a longer deadline, the same expansion bound.
  return planTask({
    planner,
    layerKey: "warm-up",
    width: layer.width,
    unit,
    start: { x: sx, y: sy, heading: 0 },
    goal: { x: gx, y: gy },
  }, {
    neighborhood: planner === "directional" ? 24 : 8,
    maxExpansions: 20000,
    maxMillis: planner === "directional" ? 2000 : 200,
  });
}

/**
 * Directional neighbourhoods whose tables the warm-up loads for every built-in turning unit: AUTO's portfolio
 * (src/planning/auto.ts) runs Directional-24 and -48, so no query pays for loading them (each set ~15-25 ms
 * from tables/, ~1.5 MB in memory; before D-48 was committed the first query that needed it built it, 1.2-3.4
 * s).
 */
export const WARM_NEIGHBORHOODS: readonly DirectionalNeighborhood[] = [24, 48];

/**
 * Neighbourhoods whose committed tables the pool shares with its workers: the warm set and Directional-8 (the
 * hybrid's, ~0.1 MB a unit), so that no worker reads a copy of its own.
 */
export const SHARED_NEIGHBORHOODS: readonly DirectionalNeighborhood[] = [8, 24, 48];

/**
 * The table profiles of `neighborhoods` (default {@link WARM_NEIGHBORHOODS}) for every built-in turning unit.
 * The pool reads those of {@link SHARED_NEIGHBORHOODS} once into shared memory and posts them to its workers
 * (service/directionalTables.ts).
 */
export function warmTableProfiles(
  neighborhoods: readonly DirectionalNeighborhood[] = WARM_NEIGHBORHOODS,
): TableProfile[] {
  const out: TableProfile[] = [];
  for (const unit of Object.values(BUILTIN_PROFILES)) {
    if (!(unit.turningRadius > 0)) continue;
    for (const n of neighborhoods) out.push(tableProfileOf(unit, n));
  }
  return out;
}

/** What {@link warmUpPlanners} did. */
export interface WarmUp {
  /** Wall time, milliseconds. */
  millis: number;
  /** Planner runs. */
  runs: number;
  /** Runs that found a path (all of them, unless a planner is broken). */
  found: number;
  /** Directional table sets loaded (or found cached) for {@link WARM_NEIGHBORHOODS}. */
  tables: number;
  /** Their share of {@link millis}. */
  tableMillis: number;
  /** The error that ended the warm-up early, or "". */
  error: string;
}

/**
 * Runs the warm-up (~40 ms of planning here, plus ~150 ms loading the D-24 and D-48 tables of the built-in
 * turning units from tables/) with the worker's directional table store. Never throws: a failure here must not
 * keep a worker from serving; it is reported in the result instead.
 */
export function warmUpPlanners(tables: DirectionalTableSource = tableStore): WarmUp {
  const t0 = performance.now();
  const out: WarmUp = { millis: 0, runs: 0, found: 0, tables: 0, tableMillis: 0, error: "" };
  const run = (ctx: PlanContext, task: PlanTask) => {
    out.runs++;
    if (runPlanTask(ctx, task, null).status === "found") out.found++;
  };
  try {
    // Tables first, so that the planner runs below (200 ms each) do not spend their budget loading them.
    const t1 = performance.now();
    // Found at once when the pool posted them over shared memory; read (or built) here otherwise.
    for (const profile of warmTableProfiles()) {
      tables.tablesUntil(profile, null);
      out.tables++;
    }
    out.tableMillis = performance.now() - t1;
    const layer = warmUpLayer();
    const ctx = new PlanContext((key) => (key === "warm-up" ? layer : undefined), tables);
    const routes = [[4.5, 4.5, 35.5, 35.5], [4.5, 30.5, 30.5, 6.5], [15.5, 15.5, 18.5, 34.5]];
    const runs: [PlannerName, UnitSpec][] = [
      ["grid", BUILTIN_PROFILES.agent],
      ["smooth", BUILTIN_PROFILES.agent],
      ["curved", BUILTIN_PROFILES.tank],
      ["hybrid", BUILTIN_PROFILES.tank],
      ["hybrid", BUILTIN_PROFILES.jeep],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [planner, unit] of runs) {
        for (const [sx, sy, gx, gy] of routes) {
          run(ctx, warmUpTask(layer, unit, planner, sx, sy, gx, gy));
        }
      }
    }
    // Directional search is the slow one to warm: one short query through the doorway (the tank's tables,
    // loaded above).
    run(ctx, warmUpTask(layer, BUILTIN_PROFILES.tank, "directional", 15.5, 15.5, 18.5, 34.5));
  } catch (e) {
    out.error = e instanceof Error ? e.message : String(e);
  }
  out.millis = performance.now() - t0;
  return out;
}
