/**
 * SIPP routes in the detour pass (service/fleetSipp.ts): soldiers on a circle, each through the centre (the
 * bench's circle scenario), paths from the smooth planner, scheduled by the fleet scheduler. With the map layer
 * given, late soldiers (they turn in place) get space-time routes (in the first round no via points, in later
 * ones via points too), the pass shortens the makespan, and every trajectory stays clear of every other in the
 * reservation table; units that turn on a radius are not given SIPP routes (they keep the via points).
 */
import { describe, expect, test } from "vitest";
import type { Segment } from "../../src/geometry/types.ts";
import { trajectoryEnd } from "../../src/motion/trajectory.ts";
import { detourLate, type DetourLeg } from "../../src/service/fleetDetour.ts";
import { FleetScheduler, type FleetUnitState } from "../../src/service/fleetScheduler.ts";
import { SippRouter } from "../../src/service/fleetSipp.ts";
import { planInProcess } from "../../src/tools/render.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { circleScenario } from "../../bench/fleetCircle.ts";
import { movingAiText } from "../helpers/warehouse.ts";

const unit = BUILTIN_PROFILES.soldier;
const { rows, specs } = circleScenario(16);
const text = movingAiText(rows);
const goals = new Map(specs.map((s) => [s.id, { x: s.gx, y: s.gy }]));

function planLeg(from: { x: number; y: number; heading?: number }, to: { x: number; y: number }) {
  return planInProcess(text, unit, { x: from.x, y: from.y, heading: from.heading ?? 0 }, to, "smooth");
}
const layer = planLeg(specs[0], goals.get(specs[0].id)!).layer;
const PATHS = specs.map((s) => planLeg(s, { x: s.gx, y: s.gy }).outcome.segments);
const plan = (legs: DetourLeg[]) =>
  Promise.resolve(legs.map((l): Segment[] | null => {
    const o = planLeg(l.from, l.to ?? goals.get(l.unit.id)!).outcome;
    return o.status === "found" ? o.segments : null;
  }));

function settled(): FleetScheduler {
  const sched = new FleetScheduler(rows[0].length, rows.length, 0.05);
  specs.forEach((s, order) => {
    const u = sched.addStanding({ id: s.id, order, unit }, { x: s.x, y: s.y, heading: 0 }, 0);
    u.path = PATHS[order];
  });
  sched.settle(0, specs.map((s) => s.id));
  return sched;
}

/** The latest arrival (Infinity when a unit is left standing with a path). */
function makespan(sched: FleetScheduler): number {
  return Math.max(
    ...[...sched.units.values()].map((u) => u.traj.segments.length ? trajectoryEnd(u.traj) : Infinity),
  );
}

describe("SIPP routes in the detour pass", () => {
  test("first round: late soldiers get space-time routes, no via points; makespan shortens, all stay clear", async () => {
    const sched = settled();
    const before = makespan(sched);
    const { changed, stats } = await detourLate(sched, 0, plan, {
      maxUnits: 64,
      fits: () => true,
      budgetMs: Infinity,
      rounds: 1,
      layer: () => layer,
    });
    expect(stats.sippSearched).toBeGreaterThan(0);
    expect(stats.sippFound).toBeGreaterThan(0);
    expect(stats.plans).toBe(0);
    expect(changed.size).toBeGreaterThan(0);
    expect(makespan(sched)).toBeLessThan(before);
    for (const u of sched.units.values()) {
      const res = { id: u.id, traj: u.traj, radius: unit.boundingRadius, speed: unit.maxSpeed };
      expect(sched.table.firstConflict(res, 0), u.id).toBeNull();
    }
  });

  test("later rounds give soldiers via points too; all stay clear", async () => {
    const sched = settled();
    const before = makespan(sched);
    const { stats } = await detourLate(sched, 0, plan, {
      maxUnits: 64,
      fits: () => true,
      budgetMs: Infinity,
      layer: () => layer,
    });
    expect(stats.rounds).toBeGreaterThan(1);
    expect(stats.sippSearched).toBeGreaterThan(0);
    expect(stats.plans).toBeGreaterThan(0);
    expect(makespan(sched)).toBeLessThan(before);
    for (const u of sched.units.values()) {
      const res = { id: u.id, traj: u.traj, radius: unit.boundingRadius, speed: unit.maxSpeed };
      expect(sched.table.firstConflict(res, 0), u.id).toBeNull();
    }
  });

  test("without the layer the pass plans via points (as before)", async () => {
    const sched = settled();
    const { stats } = await detourLate(sched, 0, plan, {
      maxUnits: 64,
      fits: () => true,
      budgetMs: Infinity,
    });
    expect(stats.sippSearched).toBe(0);
    expect(stats.plans).toBeGreaterThan(0);
  });

  test("units that turn on a radius are not given SIPP routes", () => {
    const u = { unit: BUILTIN_PROFILES.jeep, path: PATHS[0] } as FleetUnitState;
    expect(SippRouter.applies(u)).toBe(false);
    expect(SippRouter.applies({ unit, path: PATHS[0] } as FleetUnitState)).toBe(true);
    expect(SippRouter.applies({ unit, path: [] as Segment[] } as FleetUnitState)).toBe(false);
  });
});
