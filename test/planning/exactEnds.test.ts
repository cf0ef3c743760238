import { describe, expect, test } from "vitest";
import { type PassLayer } from "../../src/maps/grid.ts";
import { clearanceClass } from "../../src/maps/layer.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { PlanContext } from "../../src/planning/context.ts";
import { runPlanTask } from "../../src/planning/plan.ts";
import { joinExactEnds } from "../../src/planning/exactEnds.ts";
import { polylineSegments } from "../../src/planning/gridRoute.ts";
import { type PlannerName, type PlanOutcome, planTask } from "../../src/planning/task.ts";
import { pathCost } from "../../src/motion/pathCost.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { type UnitSpec } from "../../src/units/unit.ts";
import { checkPath, costedLayer, layerOf, sampledPathCost } from "../helpers/pathCheck.ts";

/** 20 x 20 with a border and a wall at x = 9 (open at y 12-16), swamp tiles 's' on part of the way. */
function rows(swamp: boolean): string[] {
  const out: string[] = [];
  for (let y = 0; y < 20; y++) {
    let r = "";
    for (let x = 0; x < 20; x++) {
      const border = x === 0 || y === 0 || x === 19 || y === 19;
      const wall = x === 9 && !(y >= 12 && y <= 16);
      r += border || wall ? "@" : swamp && x >= 12 && x <= 14 && y >= 2 && y <= 8 ? "s" : ".";
    }
    out.push(r);
  }
  return out;
}

const START = { x: 3.3, y: 4.8, heading: 0 };
const GOAL = { x: 16.2, y: 3.7 };

function plan(
  layer: PassLayer,
  planner: PlannerName,
  unit: UnitSpec,
  start = START,
  goal = GOAL,
): PlanOutcome {
  const table = buildRegionTable(layer, clearanceClass(unit.boundingRadius));
  const ctx = new PlanContext((k) => (k === "L" ? layer : k === "R" ? table : undefined));
  const task = planTask({ planner, layerKey: "L", width: layer.width, unit, start, goal }, {
    regionKey: "R",
  });
  return runPlanTask(ctx, task, null);
}

/** Problems of pathCheck's independent check, without heading ones: line planners turn in place at corners. */
function problems(layer: PassLayer, unit: UnitSpec, out: PlanOutcome, start = START, goal = GOAL): string[] {
  return checkPath(layer, unit, out, start, { ...goal, tolerance: 1e-9 }).filter((p) => !/heading/.test(p));
}

describe("line planners start at the start pose and end at the goal", () => {
  for (const planner of ["grid", "smooth", "hierarchical"] as const) {
    for (const name of ["agent", "soldier", "tank"] as const) {
      for (const swamp of [false, true]) {
        test(`${planner}, ${name}, ${swamp ? "swamp" : "uniform"}`, () => {
          const unit = BUILTIN_PROFILES[name];
          const layer = swamp ? costedLayer(rows(true), 5) : layerOf(rows(false));
          const out = plan(layer, planner, unit);
          expect(out.status).toBe("found");
          const segs = out.segments;
          expect(segs[0].start.x).toBe(START.x);
          expect(segs[0].start.y).toBe(START.y);
          const last = segs[segs.length - 1].end;
          expect(Math.hypot(last.x - GOAL.x, last.y - GOAL.y)).toBeLessThan(1e-9);
          expect(problems(layer, unit, out)).toEqual([]);
          const sum = segs.reduce((a, s) => a + s.length, 0);
          // GRID's length is the A* cost (plus the joins' terrain): the sum of segments on a uniform map.
          if (planner !== "grid" || !swamp) expect(out.length).toBeCloseTo(sum, 9);
          expect(out.cost!.total).toBeCloseTo(pathCost(segs, unit, layer).total, 9);
          const tileCost = (tx: number, ty: number) => layer.tileCost[ty * layer.width + tx];
          const independent = sampledPathCost(segs, unit, tileCost, 1e-3);
          expect(Math.abs(out.cost!.terrain - independent.terrain)).toBeLessThan(0.05);
          if (unit.maxSpeed > 0) {
            expect(out.duration).toBeCloseTo(segs.reduce((a, s) => a + (s.duration ?? 0), 0), 6);
          }
        });
      }
    }
  }

  test("tile-centre queries are unchanged: the path starts and ends at the centres", () => {
    const layer = layerOf(rows(false));
    const s = { x: 3.5, y: 4.5, heading: 0 }, g = { x: 16.5, y: 3.5 };
    for (const planner of ["grid", "smooth", "hierarchical"] as const) {
      const out = plan(layer, planner, BUILTIN_PROFILES.soldier, s, g);
      expect(out.segments[0].start).toMatchObject({ x: 3.5, y: 4.5 });
      const end = out.segments[out.segments.length - 1].end;
      expect(Math.hypot(end.x - 16.5, end.y - 3.5)).toBeLessThan(1e-9);
    }
  });

  test("SMOOTH's straight line runs from the exact start to the exact goal", () => {
    const layer = layerOf(rows(false));
    const out = plan(layer, "smooth", BUILTIN_PROFILES.soldier, { x: 2.2, y: 2.9, heading: 1 }, {
      x: 7.8,
      y: 6.1,
    });
    expect(out.message).toBe("straight line to the goal");
    // One line (split only where the speed phase changes).
    expect(new Set(out.segments.map((s) => s.start.heading.toFixed(12))).size).toBe(1);
    expect(out.segments[0].start).toMatchObject({ x: 2.2, y: 2.9 });
    expect(out.length).toBeCloseTo(Math.hypot(7.8 - 2.2, 6.1 - 2.9), 12);
  });

  test("NEAREST ends at the nearest reachable tile's centre, from the exact start", () => {
    const layer = layerOf(rows(false));
    const unit = BUILTIN_PROFILES.soldier;
    const ctx = new PlanContext((k) => (k === "L" ? layer : undefined));
    // Goal tile (5, 5); the task's target is the tile (5, 6) as the service's nearest search would pick.
    const task = planTask({
      planner: "grid",
      layerKey: "L",
      width: 20,
      unit,
      start: START,
      goal: { x: 5.2, y: 5.2 },
    }, {
      nearest: true,
      goalTile: 6 * 20 + 5,
    });
    const out = runPlanTask(ctx, task, null);
    expect(out.status).toBe("nearest");
    expect(out.segments[0].start).toMatchObject({ x: START.x, y: START.y });
    const end = out.segments[out.segments.length - 1].end;
    expect(Math.hypot(end.x - 5.5, end.y - 6.5)).toBeLessThan(1e-9);
  });
});

describe("ends off their tile centre by rounding", () => {
  test("a start 4e-15 from the centre moves the centre: no tiny line, no merged line through a wall", () => {
    // Seen in a stream replan: a splice pose at (29.5, 31.499999999999996). A tiny join line once set the
    // direction of polylineSegments' collinear merge, so every later step merged into one line through walls.
    const layer = layerOf(rows(false));
    const unit = BUILTIN_PROFILES.agent;
    const start = { x: 3.5, y: 4.5 - 4e-15, heading: 0 }, goal = { x: 16.5, y: 3.5 };
    for (const planner of ["grid", "smooth", "hierarchical"] as const) {
      const out = plan(layer, planner, unit, start, goal);
      expect(out.status).toBe("found");
      expect(out.segments[0].start).toMatchObject({ x: start.x, y: start.y });
      expect(out.segments.every((s) => s.length > 1e-9)).toBe(true);
      expect(problems(layer, unit, out, start, goal)).toEqual([]);
    }
  });

  test("polylineSegments does not let a tiny first line set the direction", () => {
    const segs = polylineSegments(
      Float64Array.of(29.5, 31.5 - 4e-15, 29.5, 31.5, 30.5, 32.5, 31.5, 33.5, 33.5, 33.5),
    );
    expect(segs.length).toBe(3);
    expect(segs[1].end).toMatchObject({ x: 31.5, y: 33.5 });
  });
});

describe("joinExactEnds", () => {
  // A blocked tile at (3, 2) between the start and the first tile centre.
  const layer = layerOf([
    "@@@@@@@@",
    "@......@",
    "@..@...@",
    "@......@",
    "@......@",
    "@@@@@@@@",
  ]);
  const unit = BUILTIN_PROFILES.agent;

  test("a direct join that clips a wall falls back to the second waypoint", () => {
    const pts = Float64Array.of(4.5, 2.5, 3.5, 4.5, 6.5, 4.5);
    const j = joinExactEnds(layer, unit, pts, { start: { x: 2.5, y: 2.5, heading: 0 }, goal: null }, false);
    if (typeof j === "string") throw new Error(j);
    expect(j.skippedStart).toBe(true);
    expect(Array.from(j.points)).toEqual([2.5, 2.5, 3.5, 4.5, 6.5, 4.5]);
    expect(j.joinCost).toBeCloseTo(Math.hypot(1, 2), 9);
  });

  test("no legal join answers a message, never an illegal path", () => {
    const pts = Float64Array.of(4.5, 2.5, 4.5, 1.5);
    const j = joinExactEnds(layer, unit, pts, { start: { x: 2.5, y: 2.5, heading: 0 }, goal: null }, true);
    expect(typeof j).toBe("string");
    expect(j as string).toMatch(/start pose \(2.5, 2.5\).*clip a blocked tile/);
  });

  test("the goal join: direct, or skipping the last centre when preferred and no dearer", () => {
    const pts = Float64Array.of(1.5, 4.5, 5.5, 4.5, 6.5, 4.5);
    const ends = { start: { x: 1.5, y: 4.5, heading: 0 }, goal: { x: 6.2, y: 3.9 } };
    const direct = joinExactEnds(layer, unit, pts, ends, false);
    const skip = joinExactEnds(layer, unit, pts, ends, true);
    if (typeof direct === "string" || typeof skip === "string") throw new Error("no join");
    expect(Array.from(direct.points)).toEqual([1.5, 4.5, 5.5, 4.5, 6.5, 4.5, 6.2, 3.9]);
    expect(direct.skippedGoal).toBe(false);
    expect(Array.from(skip.points)).toEqual([1.5, 4.5, 5.5, 4.5, 6.2, 3.9]);
    expect(skip.skippedGoal).toBe(true);
  });
});
