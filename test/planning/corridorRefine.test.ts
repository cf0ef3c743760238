/**
 * Corridor refinement (src/planning/corridorRefine.ts): directional search along a grid corridor, window by
 * window. Its steps chain exactly into a legal path, and a corridor the unit cannot follow is reported as a
 * cut-off search naming the step, never as "no legal path".
 */
import { describe, expect, test } from "vitest";
import { PlanBudget } from "../../src/planning/budget.ts";
import { cutAtNode, refineCorridor } from "../../src/planning/corridorRefine.ts";
import { arcSegment, lineSegment } from "../../src/geometry/segment.ts";
import { pathCost } from "../../src/motion/pathCost.ts";
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

/** A 400 x 24 strip, walled, with walls at x = 100, 200 and 300 open only near the top, bottom, top. */
function zigzag(): string[] {
  return Array.from({ length: 24 }, (_, y) =>
    Array.from({ length: 400 }, (_, x) => {
      if (x === 0 || y === 0 || x === 399 || y === 23) return "@";
      if (x === 100 || x === 300) return y >= 2 && y <= 6 ? "." : "@";
      return x === 200 && !(y >= 17 && y <= 21) ? "@" : ".";
    }).join(""));
}

/** A 4-connected tile path through the given points (x first, then y, between consecutive points). */
function polyline(width: number, pts: number[][]): number[] {
  const out = [pts[0][1] * width + pts[0][0]];
  for (let i = 1; i < pts.length; i++) {
    let [x, y] = pts[i - 1];
    const [tx, ty] = pts[i];
    while (x !== tx) x += Math.sign(tx - x), out.push(y * width + x);
    while (y !== ty) y += Math.sign(ty - y), out.push(y * width + x);
  }
  return out;
}

function refine(rows: string[], goalX: number, path?: number[], goalY = 12, maxWindows?: { limit: number }) {
  const layer = layerOf(rows);
  const ctx = contextOf(layer);
  const budget = new PlanBudget(1_000_000, 60_000, null);
  // The corridor: the straight row y = 12 (what a grid route at clearance 0 would give through the gap).
  const corridor = path ?? Array.from({ length: goalX - 4 }, (_, i) => 12 * layer.width + 4 + i);
  const start = { x: 4.5, y: 12.5, heading: 0 };
  const goal = { x: goalX - 0.5, y: goalY + 0.5, tolerance: 0.5, headingTolerance: 0.2 };
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
      ...(maxWindows ? { maxWindows } : {}),
    },
    (r: DirectionalRequest) => directionalSearch(ctx, layer, tank, r, budget),
    budget.stopped,
  );
  return { layer, run, start, goal, ctx };
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

  test("a window limit stops after that many windows with the legal prefix the whole run begins with", () => {
    const full = refine(strip(8, 16), 380).run;
    const limit: { limit: number; reached?: boolean } = { limit: 2 };
    const { layer, run, start, goal } = refine(strip(8, 16), 380, undefined, 12, limit);
    expect(run.status).toBe("found");
    expect(limit.reached).toBe(true);
    expect(run.message).toMatch(/the first 2 windows .* \(a prefix\)/);
    const out = { segments: run.segments } as unknown as PlanOutcome;
    // Legal and chained, from the start, but not at the goal: a prefix.
    expect(checkPath(layer, tank, out, start, goal)).toEqual(["does not end at the goal"]);
    expect(run.segments.length).toBeLessThan(full.segments.length);
    expect(run.segments).toEqual(full.segments.slice(0, run.segments.length));
    // A limit the corridor does not reach changes nothing.
    const wide: { limit: number; reached?: boolean } = { limit: 1000 };
    expect(refine(strip(8, 16), 380, undefined, 12, wide).run.segments).toEqual(full.segments);
    expect(wide.reached).toBeUndefined();
  });

  test("a corridor through a gap too narrow for the unit: a cut-off search naming the step", () => {
    const { run } = refine(strip(12, 12), 380);
    expect(run.status).toBe("budget");
    expect(run.message).toMatch(/corridor step \d+ \(tiles \d+\.\.\d+ of \d+\).*not ruled out/);
    // What was planned before the gap is kept, legal and chained.
    expect(run.segments.length).toBeGreaterThan(0);
  });

  test("weighted steps along a bending corridor stay within 5% of a full directional search's cost", () => {
    // Through the three gaps (top, bottom, top): the grid corridor hugs each wall end; the tank swings wide.
    const corridor = polyline(400, [[4, 12], [96, 4], [104, 4], [196, 19], [204, 19], [296, 4], [304, 4], [
      380,
      12,
    ]]);
    const { layer, run, start, goal, ctx } = refine(zigzag(), 381, corridor);
    expect(run.status).toBe("found");
    for (let i = 1; i < run.segments.length; i++) {
      expect(run.segments[i].start).toEqual(run.segments[i - 1].end);
    }
    expect(checkPath(layer, tank, { segments: run.segments } as unknown as PlanOutcome, start, goal)).toEqual(
      [],
    );
    const full = directionalSearch(ctx, layer, tank, {
      start,
      goal,
      neighborhood: 24,
      roadsOnly: false,
      reverse: true,
      maxExpansions: 2_000_000,
      window: { x0: 0, y0: 0, x1: layer.width, y1: layer.height },
    }, new PlanBudget(2_000_000, 60_000, null));
    expect(full.status).toBe("found");
    const ratio = pathCost(run.segments, tank, layer).total / pathCost(full.segments, tank, layer).total;
    expect(ratio).toBeGreaterThan(0.999);
    expect(ratio).toBeLessThanOrEqual(1.05);
  });

  test("a step's answer is cut at the node pose nearest its middle, inside a straight line when it has one", () => {
    const H = 16;
    // One 80-tile line east from a tile centre: cut at the tile centre 40 tiles on.
    const east = lineSegment({ x: 4.5, y: 12.5, heading: 0 }, 80);
    const a = cutAtNode([east], 40, H)!;
    expect(a.keep).toBe(0);
    expect(a.piece!.length).toBeCloseTo(40, 9);
    expect(a.piece!.end.x).toBeCloseTo(44.5, 9);
    // A diagonal line: tile centres every sqrt(2); the last one not beyond the target.
    const diag = lineSegment({ x: 4.5, y: 4.5, heading: Math.PI / 4 }, 20 * Math.SQRT2);
    const b = cutAtNode([diag], 10, H)!;
    expect(b.piece!.length).toBeCloseTo(7 * Math.SQRT2, 9);
    expect(b.piece!.end.x).toBeCloseTo(11.5, 9);
    expect(b.piece!.end.y).toBeCloseTo(11.5, 9);
    // An arc ending off the lattice, then a line: no cut inside the line (it starts off a tile centre), so the
    // whole answer is the only candidate... and none is a node pose: null.
    const arc = arcSegment({ x: 4.5, y: 4.5, heading: 0 }, 1 / 1.5, 1);
    const tail = lineSegment(arc.end, 30);
    expect(cutAtNode([arc, tail], 15, H)).toBeNull();
    // Segment ends that are node poses: the last one within the target, else the first one after it.
    const s1 = lineSegment({ x: 4.5, y: 4.5, heading: 0 }, 3);
    const s2 = lineSegment(s1.end, 3);
    const s3 = arcSegment(s2.end, 1 / 1.5, 1);
    expect(cutAtNode([s1, s2, s3], 6.5, H)).toEqual({ keep: 2, piece: null });
    expect(cutAtNode([s1, s2], 2, H)).toEqual({ keep: 0, piece: lineSegment(s1.start, 2) });
  });
});
