/**
 * The off-lattice search with continuous poses (src/planning/continuousSearch.ts, offLattice.ts): it finds the
 * tank's path on the centre line of a 2-wide corridor (tile borders, where no lattice state fits), says
 * "exhausted" where no pose joins the pair, and does not run after a lattice stop that is not "none".
 */
import { describe, expect, test } from "vitest";
import { arcSegment, lineSegment } from "../../src/geometry/segment.ts";
import { PlanBudget } from "../../src/planning/budget.ts";
import { continuousSearch, mergePrimitives } from "../../src/planning/continuousSearch.ts";
import { offLatticeApplies, offLatticeFallback } from "../../src/planning/offLattice.ts";
import { planOutcome } from "../../src/planning/task.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkPath, layerOf, taskOf } from "../helpers/pathCheck.ts";

const tank = BUILTIN_PROFILES.tank;

/** A 2-wide corridor (rows 2 and 3, centre line y = 3) from x = 1 to 9, then 2-wide down (columns 9, 10). */
function lCorridor(): string[] {
  const rows: string[] = [];
  for (let y = 0; y < 16; y++) {
    let row = "";
    for (let x = 0; x < 14; x++) {
      const across = (y === 2 || y === 3) && x >= 1 && x <= 10;
      const down = (x === 9 || x === 10) && y >= 2 && y <= 14;
      row += across || down ? "." : "@";
    }
    rows.push(row);
  }
  return rows;
}

const budget = () => new PlanBudget(0, 20000, null);

describe("continuous search", () => {
  test("merges consecutive primitives of one curvature and direction, joins exact", () => {
    const a = lineSegment({ x: 1, y: 1, heading: 0 }, 0.125);
    const b = lineSegment(a.end, 0.125);
    const c = arcSegment(b.end, 0.5, 0.1);
    const d = arcSegment(c.end, 0.5, 0.1);
    const e = lineSegment(d.end, 0.125, -1);
    const m = mergePrimitives([a, b, c, d, e]);
    expect(m.map((s) => [s.curvature, s.direction])).toEqual([[0, 1], [0.5, 1], [0, -1]]);
    expect(m[0].length).toBeCloseTo(0.25, 12);
    expect(m[1].end.x).toBeCloseTo(d.end.x, 12);
    expect(m[1].end.heading).toBeCloseTo(d.end.heading, 12);
  });

  test("the tank turns a square 2-wide corner between tile centres (it may back up), legal by the checker", () => {
    const layer = layerOf(lCorridor());
    const start = { x: 2.5, y: 3, heading: 0 };
    const goal = { x: 10, y: 13, heading: Math.PI / 2, tolerance: 0.5, headingTolerance: 0.2 };
    const run = continuousSearch(layer, tank, {
      start,
      goal,
      reverse: true,
      turningRadius: tank.turningRadius,
      maxExpansions: 100000,
    }, budget());
    expect(run.status).toBe("found");
    expect(checkPath(layer, tank, { segments: run.segments } as never, start, goal)).toEqual([]);
    // The square corner is too tight to turn forward at radius 1.5: forward only, the same search finds none.
    const forward = continuousSearch(layer, tank, {
      start,
      goal,
      reverse: false,
      turningRadius: tank.turningRadius,
      maxExpansions: 100000,
    }, budget());
    expect(forward.status).toBe("exhausted");
  });

  test("no pose joins a pair across a wall: exhausted, within the expansion bound", () => {
    const rows = lCorridor().map((r, y) => (y === 8 ? "@".repeat(14) : r));
    const layer = layerOf(rows);
    const run = continuousSearch(layer, tank, {
      start: { x: 2.5, y: 3, heading: 0 },
      goal: { x: 10, y: 13, tolerance: 0.5, headingTolerance: 0.2 },
      reverse: true,
      turningRadius: tank.turningRadius,
      maxExpansions: 100000,
    }, budget());
    expect(run.status).toBe("exhausted");
    expect(run.segments).toEqual([]);
  });

  test("the fallback runs only after the lattice found none, and says so", () => {
    const layer = layerOf(lCorridor());
    const start = { x: 2.5, y: 3, heading: 0 };
    const goal = { x: 10, y: 13, heading: Math.PI / 2 };
    const task = taskOf(layer, tank, start, goal, { maxMillis: 20000 });
    const none = planOutcome("directional", { status: "no_legal_path", message: "none on the lattice" });
    const stopped = planOutcome("directional", { status: "budget", message: "window" });
    expect(offLatticeApplies(task, stopped)).toBe(false);
    expect(offLatticeFallback(layer, task, budget(), 0, stopped, 1.5)).toBe(stopped);
    const roads = { ...task, options: { ...task.options, keepToRoads: true } };
    expect(offLatticeApplies(roads, none)).toBe(false);
    const out = offLatticeFallback(layer, task, budget(), 7, none, tank.turningRadius);
    expect(out.status).toBe("found");
    expect(out.expansions).toBeGreaterThan(7);
    expect(out.message).toMatch(/^off-lattice search \(continuous poses\).*none on the lattice/);
    expect(checkPath(layer, tank, out, start, { ...goal, tolerance: 0.5 })).toEqual([]);
  });
});
