/** PLANNER_HYBRID: pre-smoothing along the grid path, fallback to a full directional search; legal paths. */
import { describe, expect, test } from "vitest";
import { MAX_DIRECT_REVERSE, newHybridTrace, planHybrid } from "../../src/planning/hybrid.ts";
import { runPlanTask } from "../../src/planning/plan.ts";
import { gridSearch } from "../../src/planning/gridRoute.ts";
import { fitCurves } from "../../src/planning/curveFit.ts";
import { smoothPath } from "../../src/smoothing/simpleSmooth.ts";
import { dubinsShortest } from "../../src/geometry/dubins.ts";
import { reedsSheppShortest } from "../../src/geometry/reedsShepp.ts";
import { arcThenLine } from "../../src/geometry/arcThenLine.ts";
import { pathHitsBlocked } from "../../src/geometry/sweep.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { type UnitSpec } from "../../src/units/unit.ts";
import { type PassLayer, tileClearance } from "../../src/maps/grid.ts";
import { checkPath, contextOf, layerOf, layerOfMap, taskOf } from "../helpers/pathCheck.ts";
import { mapText } from "../helpers/movingai.ts";
import { PlanBudget } from "../../src/planning/budget.ts";

/** fitCurves along a grid path with its smoothed points, checked, forward only. */
function fitAlong(
  layer: PassLayer,
  unit: UnitSpec,
  path: Int32Array,
  start: { x: number; y: number; heading: number },
  goal: { x: number; y: number; heading?: number },
) {
  return fitCurves({
    layer,
    unit,
    path,
    smoothed: smoothPath(layer, unit.boundingRadius, path, layer.width),
    start,
    goal,
    check: true,
    tighterTurns: false,
    backingUp: false,
    budget: new PlanBudget(0, 10000, null),
  });
}

describe("hybrid", () => {
  test("open room: the shortest curve straight to the goal, legal, with no grid search", () => {
    const layer = layerOf(Array.from({ length: 24 }, () => ".".repeat(24)));
    const tank = { ...BUILTIN_PROFILES.tank };
    const start = { x: 3.5, y: 3.5, heading: 0 };
    const goal = { x: 20.5, y: 18.5 };
    const trace = newHybridTrace();
    const out = planHybrid(
      contextOf(layer),
      taskOf(layer, tank, start, goal, { planner: "hybrid" }),
      undefined,
      {
        trace,
      },
    );
    expect(out.status).toBe("found");
    expect(out.message).toBe("shortest curve straight to the goal");
    expect(trace.steps).toEqual(["direct"]);
    expect(out.expansions).toBe(0);
    // No forward path is shorter: the article's arc-then-line to the goal point.
    expect(out.length).toBeCloseTo(arcThenLine(start, goal.x, goal.y, tank.turningRadius).length, 9);
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
    // With a goal heading: the Dubins curve.
    const posed = { x: 20.5, y: 18.5, heading: Math.PI };
    const withHeading = planHybrid(
      contextOf(layer),
      taskOf(layer, tank, start, posed, { planner: "hybrid" }),
    );
    expect(withHeading.status).toBe("found");
    expect(withHeading.length).toBeCloseTo(dubinsShortest(start, posed, tank.turningRadius).length, 9);
    expect(checkPath(layer, tank, withHeading, start, posed)).toEqual([]);
  });

  test("dead end facing the wall: the grid corridor has no legal curve, the fallback finds the turn", () => {
    const rows = ["@".repeat(20)];
    for (let y = 1; y < 9; y++) {
      rows.push("@" + ".".repeat(10) + (y >= 4 && y <= 6 ? "........@" : "@@@@@@@@@"));
    }
    rows.push("@".repeat(20));
    const layer = layerOf(rows);
    const tank = { ...BUILTIN_PROFILES.tank };
    const start = { x: 17.5, y: 5.5, heading: 0 };
    const goal = { x: 5.5, y: 5.5, heading: Math.PI };
    const out = planHybrid(contextOf(layer), taskOf(layer, tank, start, goal, { planner: "hybrid" }));
    expect(out.status).toBe("found");
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
  });

  test("random arena queries: every found hybrid path is legal", () => {
    const layer = layerOfMap(mapText("arena.map"));
    const ctx = contextOf(layer);
    const tank = { ...BUILTIN_PROFILES.tank };
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = () => {
      for (;;) {
        const x = Math.floor(next() * layer.width), y = Math.floor(next() * layer.height);
        if (tileClearance(layer, y * layer.width + x) >= 1.5) return { x: x + 0.5, y: y + 0.5 };
      }
    };
    let found = 0;
    for (let i = 0; i < 6; i++) {
      const a = pick(), b = pick();
      const start = { ...a, heading: next() * 6 - 3 };
      const out = planHybrid(ctx, taskOf(layer, tank, start, b, { planner: "hybrid", maxExpansions: 30000 }));
      if (out.status !== "found") continue;
      found++;
      expect(checkPath(layer, tank, out, start, b)).toEqual([]);
    }
    expect(found).toBeGreaterThan(0);
  });

  test("skipFastFit: pre-smoothing fails both ways and the Directional-8 stitch joins the failure points", () => {
    // A boat (radius 3, forward only) rounding the tip of a diagonal wall on AR0011SR: the 4-connected grid path
    // hugs the tip, so pre-smoothing along it stalls from both ends; the stitch curves between the stall points.
    const layer = layerOfMap(mapText("AR0011SR.map"));
    const boat = { ...BUILTIN_PROFILES.boat };
    const start = { x: 149.5, y: 114.5, heading: Math.PI / 2 };
    const goal = { x: 117.5, y: 99.5 };
    const trace = newHybridTrace();
    const task = taskOf(layer, boat, start, goal, { planner: "hybrid", maxExpansions: 200000 });
    const out = planHybrid(contextOf(layer), task, undefined, { skipFastFit: true, trace });
    expect(trace.steps).toEqual(["grid", "forward", "backward", "stitch", "smooth"]);
    expect(trace.forward).toBe("partial");
    expect(trace.backward).toBe("partial");
    expect(out.status).toBe("found");
    expect(out.message).toBe("pre-smoothing both ways, Directional-8 stitch");
    expect(checkPath(layer, boat, out, start, goal)).toEqual([]);
    // Both passes made progress before failing, and the stitch added a piece between them.
    const [fwd, mid, bwd] = trace.pieces!;
    expect(fwd).toBeGreaterThan(0);
    expect(mid).toBeGreaterThan(0);
    expect(bwd).toBeGreaterThan(0);
    const a = trace.a!, b = trace.b!;
    expect(Math.hypot(a.x - start.x, a.y - start.y)).toBeGreaterThan(5);
    expect(Math.hypot(b.x - goal.x, b.y - goal.y)).toBeGreaterThan(5);
    // The attached path before smoothing: legal, exact joins, from the start to the goal, through a and b.
    const stitched = trace.stitched!;
    expect(stitched.length).toBe(fwd + mid + bwd);
    expect(checkPath(layer, boat, { ...out, segments: stitched }, start, { ...goal, tolerance: 1e-6 }))
      .toEqual([]);
    const wrap = (x: number) => Math.atan2(Math.sin(x), Math.cos(x));
    const atA = stitched[fwd - 1].end, atB = stitched[fwd + mid - 1].end;
    expect(Math.hypot(atA.x - a.x, atA.y - a.y)).toBeLessThan(1e-9);
    expect(Math.abs(wrap(atA.heading - a.heading))).toBeLessThan(1e-9);
    expect(Math.hypot(atB.x - b.x, atB.y - b.y)).toBeLessThan(1e-6);
    expect(Math.abs(wrap(atB.heading - b.heading))).toBeLessThan(1e-6);
  });

  test("default options keep the fast lane first; skipFastFit leaves it out", () => {
    const layer = layerOf(Array.from({ length: 24 }, () => ".".repeat(24)));
    const tank = { ...BUILTIN_PROFILES.tank };
    const start = { x: 3.5, y: 3.5, heading: 0 };
    const goal = { x: 20.5, y: 18.5 };
    const task = taskOf(layer, tank, start, goal, { planner: "hybrid" });
    const withFit = newHybridTrace();
    const a = planHybrid(contextOf(layer), task, undefined, { trace: withFit });
    expect(withFit.steps[0]).toBe("direct");
    expect(a.status).toBe("found");
    const without = newHybridTrace();
    const b = planHybrid(contextOf(layer), task, undefined, { skipFastFit: true, trace: without });
    expect(without.steps).not.toContain("fit");
    expect(without.steps).not.toContain("direct");
    expect(without.steps.slice(0, 2)).toEqual(["grid", "forward"]);
    expect(b.status).toBe("found");
    expect(checkPath(layer, tank, b, start, goal)).toEqual([]);
  });

  test("the stitch window leaves room for a wide turner's loop (a fixed 4-tile margin sent this to the fallback)", () => {
    // A boat facing away from a goal 9 tiles west: pre-smoothing makes no headway from either end, and the
    // Directional-8 stitch must turn the boat around, a loop about 2 * 3 + 0.8 tiles across.
    const layer = layerOfMap(mapText("arena.map"));
    const boat = { ...BUILTIN_PROFILES.boat };
    const start = { x: 19.5, y: 29.5, heading: -Math.PI / 2 };
    const goal = { x: 10.5, y: 30.5 };
    const trace = newHybridTrace();
    const task = taskOf(layer, boat, start, goal, { planner: "hybrid", maxExpansions: 200000 });
    const out = planHybrid(contextOf(layer), task, undefined, { skipFastFit: true, trace });
    expect(trace.steps).toContain("stitch");
    expect(trace.steps).not.toContain("fallback");
    expect(out.status).toBe("found");
    expect(checkPath(layer, boat, out, start, goal)).toEqual([]);
    expect(checkPath(layer, boat, { ...out, segments: trace.stitched! }, start, { ...goal, tolerance: 1e-6 }))
      .toEqual([]);
  });

  test("fast lane: curves fitted along exactly SMOOTH's 8-connected smoothed path", () => {
    // A wall with a gap: the 8-connected route cuts diagonally through the gap, the 4-connected one would not.
    const rows = Array.from({ length: 24 }, () => ".".repeat(24).split(""));
    for (let y = 0; y < 24; y++) if (y < 10 || y > 13) rows[y][12] = "@";
    const layer = layerOf(rows.map((r) => r.join("")));
    const ctx = contextOf(layer);
    const tank = { ...BUILTIN_PROFILES.tank };
    const start = { x: 3.5, y: 3.5, heading: 0 };
    const goal = { x: 20.5, y: 20.5 };
    const trace = newHybridTrace();
    const out = planHybrid(ctx, taskOf(layer, tank, start, goal, { planner: "hybrid" }), undefined, {
      trace,
    });
    const smooth = runPlanTask(
      ctx,
      taskOf(layer, tank, start, goal, { planner: "smooth", neighborhood: 8 }),
      null,
    );
    expect(out.status).toBe("found");
    expect(trace.fitted).toBe(8);
    // The wall is in the way of the direct curve.
    expect(trace.steps).toEqual(["direct", "fit"]);
    expect(out.message).toBe("curves fitted to the smoothed 8-connected grid path");
    // Same grid route as SMOOTH, and the expansions of that one search only.
    expect(Array.from(out.waypoints!)).toEqual(Array.from(smooth.waypoints!));
    expect(out.expansions).toBe(smooth.expansions);
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
  });

  test("fast lane paths are swept once, by the fitting: every found path still passes the independent check", () => {
    // The benchmark's parking lot (rows of blocks, a jeep parking with a heading) and rooms with 3-wide doors.
    const lot = Array.from(
      { length: 64 },
      (_, y) =>
        Array.from({ length: 64 }, (_, x) =>
          x === 0 || y === 0 || x === 63 || y === 63 ||
            (y % 10 >= 4 && y % 10 <= 5 && x % 16 >= 4 && x % 16 <= 12)
            ? "@"
            : ".").join(""),
    );
    const rooms = Array.from(
      { length: 64 },
      (_, y) =>
        Array.from({ length: 64 }, (_, x) =>
          x === 0 || y === 0 || x === 63 || y === 63 ||
            ((x === 21 || x === 42) && !(y % 21 >= 9 && y % 21 <= 11))
            ? "@"
            : ".").join(""),
    );
    const cases = [
      { layer: layerOf(lot), unit: { ...BUILTIN_PROFILES.jeep }, lot: true },
      { layer: layerOf(rooms), unit: { ...BUILTIN_PROFILES.tank }, lot: false },
    ];
    const fitted: number[] = [];
    for (const c of cases) {
      const ctx = contextOf(c.layer);
      for (let i = 0; i < 12; i++) {
        const start = c.lot
          ? { x: 2.5 + (i % 3), y: 2.5 + 4 * (i % 5), heading: 0 }
          : { x: 5.5, y: 5.5 + 4 * i, heading: 0 };
        const goal = c.lot
          ? { x: 10.5 + 8 * (i % 6), y: 7.5 + 10 * (i % 5), heading: i % 2 ? 0 : Math.PI }
          : { x: 58.5, y: 55.5 - 4 * i };
        const trace = newHybridTrace();
        const out = planHybrid(ctx, taskOf(c.layer, c.unit, start, goal, { planner: "hybrid" }), undefined, {
          trace,
        });
        if (out.status !== "found") continue;
        fitted.push(trace.fitted);
        expect(checkPath(c.layer, c.unit, out, start, goal)).toEqual([]);
      }
    }
    // Most answers come from the 8-connected fit, the path the re-check no longer sweeps a second time.
    expect(fitted.filter((n) => n === 8).length).toBeGreaterThan(fitted.length / 2);
  });

  test("fitCurves: legal curves along a smoothed 8-connected path, or a failure, never an illegal path", () => {
    const rows = Array.from({ length: 24 }, () => ".".repeat(24).split(""));
    for (let y = 0; y < 24; y++) if (y < 10 || y > 13) rows[y][12] = "@";
    const layer = layerOf(rows.map((r) => r.join("")));
    const ctx = contextOf(layer);
    const tank = { ...BUILTIN_PROFILES.tank };
    const fit = (
      start: { x: number; y: number; heading: number },
      goal: { x: number; y: number; heading?: number },
    ) => {
      const search = gridSearch(
        ctx,
        layer,
        taskOf(layer, tank, start, goal, { planner: "hybrid" }),
        8,
        new PlanBudget(0, 0, null),
      );
      expect(search.status).toBe("found");
      return fitAlong(layer, tank, search.path!, start, goal);
    };
    // Through the gap, arriving with a heading: exact end pose, legal and joined.
    const start = { x: 3.5, y: 3.5, heading: 0 };
    const goal = { x: 20.5, y: 20.5, heading: Math.PI / 2 };
    const ok = fit(start, goal);
    expect(ok.status).toBe("found");
    if (ok.status !== "found") return;
    const end = ok.segments[ok.segments.length - 1].end;
    expect(Math.hypot(end.x - goal.x, end.y - goal.y)).toBeLessThan(1e-6);
    expect(Math.abs(Math.atan2(Math.sin(end.heading - goal.heading), Math.cos(end.heading - goal.heading))))
      .toBeLessThan(1e-6);
    const asOutcome = { ...planHybrid(ctx, taskOf(layer, tank, start, goal, { planner: "hybrid" })) };
    asOutcome.segments = ok.segments;
    expect(checkPath(layer, tank, asOutcome, start, { ...goal, tolerance: 1e-6, headingTolerance: 1e-6 }))
      .toEqual([]);
    // Facing the wall one tile from it, forward only: no legal curve turns around there.
    const cornered = fit({ x: 10.5, y: 2.5, heading: 0 }, { x: 3.5, y: 2.5 });
    expect(cornered.status).toBe("failed");
  });

  test("the direct curve beside a pillar: the Dubins curve when legal, else the fit around the pillar", () => {
    // A pillar above the diagonal: the smoothed grid route bends around it (via the tile at 25.5, 7.5),
    // while the direct Dubins curve passes below it.
    const rows = Array.from({ length: 30 }, () => ".".repeat(30).split(""));
    for (let y = 8; y < 11; y++) for (let x = 16; x < 19; x++) rows[y][x] = "@";
    const layer = layerOf(rows.map((r) => r.join("")));
    const ctx = contextOf(layer);
    const tank = { ...BUILTIN_PROFILES.tank };
    const hybrid = (
      start: { x: number; y: number; heading: number },
      goal: { x: number; y: number; heading: number },
    ) => {
      const trace = newHybridTrace();
      const out = planHybrid(ctx, taskOf(layer, tank, start, goal, { planner: "hybrid" }), undefined, {
        trace,
      });
      return { out, trace };
    };
    const start = { x: 4.5, y: 4.5, heading: 0 };
    const goal = { x: 25.5, y: 24.5, heading: Math.PI / 2 };
    const direct = dubinsShortest(start, goal, tank.turningRadius);
    expect(pathHitsBlocked(layer, direct.segments, tank.footprint)).toBe(false);
    const taken = hybrid(start, goal);
    const path = gridSearch(
      ctx,
      layer,
      taskOf(layer, tank, start, goal, { planner: "hybrid" }),
      4,
      new PlanBudget(0, 0, null),
    )
      .path!;
    const along = fitAlong(layer, tank, path, start, goal);
    expect(taken.out.status).toBe("found");
    expect(along.status).toBe("found");
    if (along.status !== "found") return;
    const len = (segs: { length: number }[]) => segs.reduce((a, s) => a + s.length, 0);
    expect(taken.trace.steps).toEqual(["direct"]);
    expect(len(taken.out.segments)).toBeCloseTo(direct.length, 9);
    expect(len(along.segments)).toBeGreaterThan(direct.length + 1e-6);
    // Through the pillar the direct curve is blocked: it is refused and the fit goes around.
    const from = { x: 12.5, y: 6.5, heading: Math.PI / 4 };
    const behind = { x: 22.5, y: 12.5, heading: Math.PI / 4 };
    expect(pathHitsBlocked(layer, dubinsShortest(from, behind, tank.turningRadius).segments, tank.footprint))
      .toBe(true);
    const around = hybrid(from, behind);
    expect(around.out.status).toBe("found");
    expect(around.trace.steps.slice(0, 2)).toEqual(["direct", "fit"]);
    expect(pathHitsBlocked(layer, around.out.segments, tank.footprint)).toBe(false);
    const end = around.out.segments[around.out.segments.length - 1].end;
    expect(Math.hypot(end.x - behind.x, end.y - behind.y)).toBeLessThan(1e-6);
  });
  test("corridor U-turn: a short reverse maneuver is taken directly, a long drive in reverse is not", () => {
    // A 5-wide corridor off a room: the tank (radius 0.9, turning radius 1.5) cannot loop around in it.
    const rows = Array.from(
      { length: 20 },
      (_, y) =>
        Array.from(
          { length: 64 },
          (_, x) =>
            (x >= 1 && x <= 20 && y >= 1 && y <= 18) || (x >= 21 && x <= 62 && y >= 7 && y <= 11) ? "." : "@",
        )
          .join(""),
    );
    const layer = layerOf(rows);
    const tank = { ...BUILTIN_PROFILES.tank };
    const start = { x: 50.5, y: 9.5, heading: 0 };
    const goal = { x: 8.5, y: 9.5, heading: Math.PI };
    const trace = newHybridTrace();
    const out = planHybrid(
      contextOf(layer),
      taskOf(layer, tank, start, goal, { planner: "hybrid" }),
      undefined,
      {
        trace,
      },
    );
    expect(out.status).toBe("found");
    expect(out.message).toBe("shortest curve to the goal with a short reverse maneuver");
    // The shortest forward curve is blocked and the maneuver crosses only the cheapest terrain: outright.
    expect(trace.steps).toEqual(["direct"]);
    const backing = out.segments.filter((s) => s.direction < 0).reduce((a, s) => a + s.length, 0);
    expect(backing).toBeGreaterThan(0);
    expect(backing).toBeLessThanOrEqual(MAX_DIRECT_REVERSE * tank.turningRadius + 1e-9);
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
    // The unit stops at the cusp: the speed profile sees the maneuver.
    const cusp = out.segments.findIndex((s, i) => i > 0 && s.direction !== out.segments[i - 1].direction);
    expect(out.segments[cusp].startSpeed).toBe(0);
    // Same corridor, goal 30 tiles behind with the start's heading: the shortest curve is a 30-tile reverse
    // drive, which is no maneuver; the hybrid plans instead (and whatever it returns is legal).
    const behind = { x: 20.5, y: 9.5, heading: 0 };
    const long = planHybrid(contextOf(layer), taskOf(layer, tank, start, behind, { planner: "hybrid" }));
    expect(long.message).not.toBe("shortest curve to the goal with a short reverse maneuver");
    if (long.status === "found") expect(checkPath(layer, tank, long, start, behind)).toEqual([]);
    // A unit that cannot reverse never gets the maneuver.
    const forwardOnly = { ...tank, canReverse: false };
    const fwd = planHybrid(contextOf(layer), taskOf(layer, forwardOnly, start, goal, { planner: "hybrid" }));
    expect(fwd.segments.every((s) => s.direction === 1)).toBe(true);
    if (fwd.status === "found") expect(checkPath(layer, forwardOnly, fwd, start, goal)).toEqual([]);
  });
  test("fast lane only (the service's inline lane): the full planner's answer when it settles, else budget", () => {
    const layer = layerOfMap(mapText("arena.map"));
    const ctx = contextOf(layer);
    let seed = 23;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = () => {
      for (;;) {
        const x = Math.floor(rnd() * layer.width), y = Math.floor(rnd() * layer.height);
        if (tileClearance(layer, y * layer.width + x) >= 1.5) return { x: x + 0.5, y: y + 0.5 };
      }
    };
    let settled = 0, deferred = 0;
    for (const unit of [BUILTIN_PROFILES.tank, BUILTIN_PROFILES.jeep, BUILTIN_PROFILES.truck]) {
      for (let i = 0; i < 40; i++) {
        const a = pick(), b = pick();
        const start = { ...a, heading: rnd() * 6.28 - 3.14 };
        const goal = i % 2 ? b : { ...b, heading: rnd() * 6.28 };
        const task = taskOf(layer, unit, start, goal, { planner: "hybrid" });
        const inline = runPlanTask(ctx, { ...task, maxExpansions: 2048, fastLaneOnly: true }, null);
        const whole = runPlanTask(ctx, task, null);
        if (inline.status === "found") {
          settled++;
          expect(inline.segments).toEqual(whole.segments);
          expect(inline.message).toBe(whole.message);
          expect(inline.duration).toBe(whole.duration);
        } else {
          deferred++;
          expect(inline.status).toBe("budget");
          expect(inline.segments).toEqual([]);
        }
      }
    }
    expect(settled).toBeGreaterThan(60);
    // Parking into a bay between rows of blocks: no curve fit along the grid route within the inline checks,
    // so the fast lane defers it, and the full planner finds it with its searches.
    const lot = Array.from({ length: 64 }, (_, y) =>
      Array.from({ length: 64 }, (_, x) => {
        if (x === 0 || y === 0 || x === 63 || y === 63) return "@";
        return y % 10 >= 4 && y % 10 <= 5 && x % 16 >= 4 && x % 16 <= 12 ? "@" : ".";
      }).join(""));
    const lotLayer = layerOf(lot);
    const jeep = { ...BUILTIN_PROFILES.jeep };
    const bay = taskOf(lotLayer, jeep, { x: 4.5, y: 6.5, heading: 0 }, { x: 50.5, y: 17.5, heading: 0 }, {
      planner: "hybrid",
    });
    const deferredOne = runPlanTask(
      contextOf(lotLayer),
      { ...bay, maxExpansions: 2048, fastLaneOnly: true },
      null,
    );
    expect(deferredOne.status).toBe("budget");
    expect(deferredOne.message).toBe("the hybrid's fast lane did not settle the query");
    const full = runPlanTask(contextOf(lotLayer), bay, null);
    expect(full.status).toBe("found");
    expect(checkPath(lotLayer, jeep, full, bay.start, bay.goal)).toEqual([]);
    expect(settled + deferred).toBe(120);
  });
  test("fitCurves, last leg: the Reeds-Shepp curve first when it costs less by the unit's penalties", () => {
    const layer = layerOf(Array.from({ length: 24 }, () => ".".repeat(24)));
    const tank = { ...BUILTIN_PROFILES.tank };
    const start = { x: 10.5, y: 10.5, heading: 0 };
    const fit = (goal: { x: number; y: number; heading: number }, backingUp: boolean) => {
      const path = gridSearch(
        contextOf(layer),
        layer,
        taskOf(layer, tank, start, goal),
        8,
        new PlanBudget(0, 0, null),
      ).path!;
      const out = fitCurves({
        layer,
        unit: tank,
        path,
        smoothed: smoothPath(layer, tank.boundingRadius, path, layer.width),
        start,
        goal,
        check: true,
        tighterTurns: false,
        backingUp,
        budget: new PlanBudget(0, 10000, null),
      });
      expect(out.status).toBe("found");
      return out.status === "found" ? out.segments : [];
    };
    const cost = (segs: { length: number; direction: number }[]) =>
      segs.reduce(
        (c, q, i) =>
          c + q.length * (q.direction < 0 ? tank.reversePenalty : 1) +
          (i > 0 && q.direction !== segs[i - 1].direction ? tank.cuspPenalty : 0),
        0,
      );
    const len = (segs: { length: number }[]) => segs.reduce((a, q) => a + q.length, 0);
    // Two tiles ahead, facing +y: a short maneuver with one cusp (cost 5.9) beats the forward loop (10.9).
    const side = { x: 12.5, y: 10.5, heading: Math.PI / 2 };
    const rs = reedsSheppShortest(start, side, tank.turningRadius);
    const dubins = dubinsShortest(start, side, tank.turningRadius);
    expect(cost(rs.segments)).toBeLessThan(dubins.length);
    const taken = fit(side, true);
    expect(taken.some((q) => q.direction < 0)).toBe(true);
    expect(len(taken)).toBeCloseTo(rs.length, 9);
    // Without backing up: the forward loop.
    expect(len(fit(side, false))).toBeCloseTo(dubins.length, 9);
    // Four tiles ahead, facing back: the forward curve (9.90) beats the maneuver's cost (10.07), so it stays first.
    const back = { x: 14.5, y: 10.5, heading: Math.PI };
    const rsBack = reedsSheppShortest(start, back, tank.turningRadius);
    const dubinsBack = dubinsShortest(start, back, tank.turningRadius);
    expect(cost(rsBack.segments)).toBeGreaterThan(dubinsBack.length);
    const kept = fit(back, true);
    expect(kept.every((q) => q.direction === 1)).toBe(true);
    expect(len(kept)).toBeCloseTo(dubinsBack.length, 9);
  });
});
