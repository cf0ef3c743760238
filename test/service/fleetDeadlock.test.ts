/**
 * Standoffs among waiting fleet units are broken after a delay repair (service/fleetDeadlock.ts, issue 12): two
 * soldiers standing head-on in a one-tile aisle each stand on the other's path, so each waits for the other for
 * good (a 2-cycle of blocker links) and no start delay helps. A third unit's reported delay elsewhere runs the
 * repair (service/fleetRepair.ts repairLate); before the breaker both stayed waiting for good (seen over gRPC
 * in the warehouse: one such pair stranded 61 of 100 robots). Now one unit of the pair steps aside into the bay
 * (no way round in the aisle) or, where the aisles form a loop, goes round; everyone arrives, and the independent
 * checker (test/helpers/fleetCheck.ts) finds no overlap, wall contact or contract error on the trajectories as a
 * client would have received them. In process, no clock: the budget is wall-clock but generous for this size.
 */
import { describe, expect, test } from "vitest";
import type { Pose } from "../../src/geometry/types.ts";
import { trajectoryPose } from "../../src/motion/trajectory.ts";
import { standoffHeads } from "../../src/service/fleetDeadlock.ts";
import { repairLate } from "../../src/service/fleetRepair.ts";
import {
  FleetScheduler,
  type FleetUnitState,
  remainingPath,
  trajectoryFrom,
} from "../../src/service/fleetScheduler.ts";
import { planInProcess } from "../../src/tools/render.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkFleet, type CTrajectory, type CUnit, discUnit, wireSegments } from "../helpers/fleetCheck.ts";
import { movingAiText } from "../helpers/warehouse.ts";

const unit = BUILTIN_PROFILES.soldier;

/** A one-tile aisle (row 2) with a one-tile bay above it at x = 10, and a second aisle (row 4) apart. */
const BAY = [
  "@@@@@@@@@@@@@@@@@@@@@@",
  "@@@@@@@@@@.@@@@@@@@@@@",
  "@....................@",
  "@@@@@@@@@@@@@@@@@@@@@@",
  "@....................@",
  "@@@@@@@@@@@@@@@@@@@@@@",
];

/** The same aisle (row 2) joined at both ends to a parallel one (row 0 side): a loop, no bay. */
const LOOP = [
  "@@@@@@@@@@@@@@@@@@@@@@",
  "@....................@",
  "@.@@@@@@@@@@@@@@@@@@.@",
  "@....................@",
  "@@@@@@@@@@@@@@@@@@@@@@",
  "@....................@",
  "@@@@@@@@@@@@@@@@@@@@@@",
];

type Spec = { id: string; x: number; y: number; gx: number; gy: number };

/**
 * Adds the units standing at their starts with planned paths, settles at t = 0, then unit `late` reports at
 * t = 3 the pose it should have had at t = 1 and is repaired (with the standoff breaker: `layer`); returns the
 * scheduler, what a client received per unit, and the standoffs right after settling.
 */
function run(rows: string[], specs: Spec[], late: string) {
  const text = movingAiText(rows);
  const plan = (s: Spec) =>
    planInProcess(text, unit, { x: s.x, y: s.y, heading: 0 }, { x: s.gx, y: s.gy }, "smooth");
  const layer = plan(specs[0]).layer;
  const sched = new FleetScheduler(rows[0].length, rows.length, 0.05);
  specs.forEach((s, order) => {
    const u = sched.addStanding({ id: s.id, order, unit }, { x: s.x, y: s.y, heading: 0 }, 0);
    const o = plan(s).outcome;
    expect(o.status, s.id).toBe("found");
    u.path = o.segments;
  });
  const received = new Map<string, CTrajectory[]>(specs.map((s) => [s.id, []]));
  const send = (ids: Iterable<string>, time: number) => {
    for (const id of ids) {
      const u = sched.units.get(id)!;
      const t = trajectoryFrom(u.traj, time);
      received.get(id)!.push({ start_time: t.startTime, segments: wireSegments(t.segments) });
    }
  };
  send(sched.settle(0, specs.map((s) => s.id)), 0);
  const heads = standoffHeads(sched, 0).map((h) => h.map((u) => u.id).sort());
  const u = sched.units.get(late)!;
  const at: Pose = trajectoryPose(u.traj, 1);
  u.path = remainingPath(u.traj, 1, unit);
  send(repairLate(sched, u, at, 3, true, () => layer), 3);
  const units: CUnit[] = specs.map((s) => discUnit(s, unit.boundingRadius, received.get(s.id)!));
  return { sched, heads, report: checkFleet(rows, units, { step: 0.02 }) };
}

const status = (sched: FleetScheduler) =>
  Object.fromEntries([...sched.units.values()].map((u: FleetUnitState) => [u.id, u.status]));

describe("standoffs after a delay repair", () => {
  test("head-on in a one-tile aisle with a bay: one steps aside, both arrive", () => {
    const { sched, heads, report } = run(BAY, [
      { id: "a", x: 3.5, y: 2.5, gx: 18.5, gy: 2.5 },
      { id: "b", x: 16.5, y: 2.5, gx: 1.5, gy: 2.5 },
      { id: "c", x: 1.5, y: 4.5, gx: 20.5, gy: 4.5 },
    ], "c");
    // The standoff: a and b each wait for the other.
    expect(heads).toEqual([["a", "b"]]);
    expect(status(sched)).toEqual({ a: "moving", b: "moving", c: "moving" });
    expect(report.arrived.sort()).toEqual(["a", "b", "c"]);
    expect(report.overlaps).toEqual([]);
    expect(report.wallContacts).toEqual([]);
    expect(report.contractErrors).toEqual([]);
  }, 30_000);

  test("head-on in a one-tile aisle of a loop: one goes round, both arrive", () => {
    const { sched, heads, report } = run(LOOP, [
      { id: "a", x: 5.5, y: 3.5, gx: 17.5, gy: 3.5 },
      { id: "b", x: 14.5, y: 3.5, gx: 2.5, gy: 3.5 },
      { id: "c", x: 1.5, y: 5.5, gx: 20.5, gy: 5.5 },
    ], "c");
    expect(heads).toEqual([["a", "b"]]);
    expect(status(sched)).toEqual({ a: "moving", b: "moving", c: "moving" });
    expect(report.arrived.sort()).toEqual(["a", "b", "c"]);
    expect(report.overlaps).toEqual([]);
    expect(report.wallContacts).toEqual([]);
    expect(report.contractErrors).toEqual([]);
  }, 30_000);
});
