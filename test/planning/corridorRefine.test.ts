/**
 * Corridor refinement (src/planning/corridorRefine.ts): directional search along a grid corridor, window by
 * window. Its steps chain exactly into a legal path, and a corridor the unit cannot follow is reported as a
 * cut-off search naming the step, never as "no legal path".
 */
import { describe, expect, test } from "vitest";
import { PlanBudget } from "../../src/planning/budget.ts";
import { refineCorridor } from "../../src/planning/corridorRefine.ts";
import { directionalSearch, tableProfileOf } from "../../src/planning/directional.ts";
import type { DirectionalRequest } from "../../src/search/directionalSetup.ts";
import type { PlanOutcome } from "../../src/planning/task.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkPath, contextOf, layerOf } from "../helpers/pathCheck.ts";

const tank = { ...BUILTIN_PROFILES.tank };

/** A 400 x 24 strip, walled, with a wall at x = 200 whose gap is rows gy0..gy1. */
function strip(gy0: number, gy1: number): string[] {
  return Array.from({ length: 24 }, (_, y) =>
    Array.from({ length: 400 }, (_, x) => {
      if (x === 0 || y === 0 || x === 399 || y === 23) return "@";
      return x === 200 && !(y >= gy0 && y <= gy1) ? "@" : ".";
    }).join(""));
}

function refine(rows: string[], goalX: number) {
  const layer = layerOf(rows);
  const ctx = contextOf(layer);
  const budget = new PlanBudget(1_000_000, 60_000, null);
  // The corridor: the straight row y = 12 (what a grid route at clearance 0 would give through the gap).
  const corridor = Array.from({ length: goalX - 4 }, (_, i) => 12 * layer.width + 4 + i);
  const start = { x: 4.5, y: 12.5, heading: 0 };
  const goal = { x: goalX - 0.5, y: 12.5, tolerance: 0.5, headingTolerance: 0.2 };
  const run = refineCorridor(
    layer,
    {
      start,
      goal,
      neighborhood: 24,
      roadsOnly: false,
      reverse: true,
      maxExpansions: 1_000_000,
      corridor,
      headings: tableProfileOf(tank, 24, true).headings,
      footprint: tank.footprint,
    },
    (r: DirectionalRequest) => directionalSearch(ctx, layer, tank, r, budget),
    budget.stopped,
  );
  return { layer, run, start, goal };
}

describe("corridor refinement", () => {
  test("steps chain exactly into a legal path along a long corridor", () => {
    const { layer, run, start, goal } = refine(strip(8, 16), 380);
    expect(run.status).toBe("found");
    expect(run.message).toMatch(/corridor refinement: \d+ windows/);
    expect(Number(run.message.match(/(\d+) windows/)![1])).toBeGreaterThan(2);
    for (let i = 1; i < run.segments.length; i++) {
      expect(run.segments[i].start).toEqual(run.segments[i - 1].end);
    }
    const out = { segments: run.segments } as unknown as PlanOutcome;
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
  });

  test("a corridor through a gap too narrow for the unit: a cut-off search naming the step", () => {
    const { run } = refine(strip(12, 12), 380);
    expect(run.status).toBe("budget");
    expect(run.message).toMatch(/corridor step \d+ \(tiles \d+\.\.\d+ of \d+\).*not ruled out/);
    // What was planned before the gap is kept, legal and chained.
    expect(run.segments.length).toBeGreaterThan(0);
  });
});
