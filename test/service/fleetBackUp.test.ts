/**
 * Backing up a step in a head-on meeting: a one-tile corridor with a side pocket behind unit b, which came out of
 * it; a (late, so it drives on at once: fleetRepair.ts) comes head-on. b backs over its ground into the pocket,
 * waits while a passes and goes on; both arrive, the independent checker finds no overlap and no wall contact.
 * Before backing up existed b stood in the corridor and a waited for good (a never arrived).
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import type { Pose, Segment } from "../../src/geometry/types.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { trajectoryPose } from "../../src/motion/trajectory.ts";
import { FleetScheduler, trajectoryFrom } from "../../src/service/fleetScheduler.ts";
import { repairLate } from "../../src/service/fleetRepair.ts";
import { asideAndBack, backingMode } from "../../src/service/fleetBackUp.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { checkFleet, type CTrajectory, type CUnit, wireSegments } from "../helpers/fleetCheck.ts";

// Row 1 is the corridor (one tile wide); the pocket is tile (5, 0) above it.
const ROWS = [
  "@@@@@.@@@@@@@@@@@@@@@@",
  "......................",
  "@@@@@@@@@@@@@@@@@@@@@@",
];

/** Straight legs through `pts`, turning in place at the corners, profiled from rest to rest. */
function polyline(pts: { x: number; y: number }[], unit: UnitSpec): Segment[] {
  const segs: Segment[] = [];
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1], b = pts[i];
    segs.push(
      lineSegment({ ...a, heading: Math.atan2(b.y - a.y, b.x - a.x) }, Math.hypot(b.x - a.x, b.y - a.y)),
    );
  }
  applySpeedProfile(segs, unit);
  return splitAtSpeedPhases(segs, unit);
}

function wire(t: { startTime: number; segments: Segment[] }): CTrajectory {
  return {
    start_time: t.startTime,
    segments: wireSegments(t.segments),
  };
}

function meeting(unit: UnitSpec) {
  const sched = new FleetScheduler(22, 3);
  const aStart: Pose = { x: 19.5, y: 1.5, heading: Math.PI };
  const bStart: Pose = { x: 5.5, y: 0.5, heading: Math.PI / 2 };
  const a = sched.addStanding({ id: "a", order: 0, unit }, aStart, 0);
  const b = sched.addStanding({ id: "b", order: 1, unit }, bStart, 0);
  b.path = polyline([bStart, { x: 5.5, y: 1.5 }, { x: 17.5, y: 1.5 }], unit);
  sched.settle(0, ["b"], false);
  const bFirst = trajectoryFrom(b.traj, 0);
  expect(b.status).toBe("moving");
  // At t = 2 b is in the corridor; a (late) sets out head-on and drives on at once.
  const t = 2;
  expect(trajectoryPose(b.traj, t).y).toBeCloseTo(1.5, 6);
  a.path = polyline([aStart, { x: 1.5, y: 1.5 }], unit);
  const changed = repairLate(sched, a, aStart, t);
  expect(changed.has("b")).toBe(true);
  const units: CUnit[] = [
    {
      id: "a",
      radius: unit.footprint.radius,
      width: 0,
      length: 0,
      start: aStart,
      goal: { x: 1.5, y: 1.5 },
      trajectories: [wire(trajectoryFrom(a.traj, t))],
    },
    {
      id: "b",
      radius: unit.footprint.radius,
      width: 0,
      length: 0,
      start: bStart,
      goal: { x: 17.5, y: 1.5 },
      trajectories: [wire(bFirst), wire(trajectoryFrom(b.traj, t))],
    },
  ];
  const report = checkFleet(ROWS, units, { step: 0.01, until: 40 });
  return { a, b, report };
}

describe("backing up a step (fleetBackUp)", () => {
  test("a unit that can reverse backs into the pocket behind it; both arrive, no overlap", () => {
    const unit: UnitSpec = { ...BUILTIN_PROFILES.soldier, canReverse: true };
    expect(backingMode(unit)).toBe("reverse");
    const { a, b, report } = meeting(unit);
    expect(report.overlaps).toEqual([]);
    expect(report.wallContacts).toEqual([]);
    expect(report.contractErrors).toEqual([]);
    expect(report.arrived.sort()).toEqual(["a", "b"]);
    expect(a.status).toBe("moving");
    expect(b.status).toBe("moving");
    // It reverses, into the pocket (off a's path), before going on.
    expect(b.traj.segments.some((s) => s.direction === -1 && s.length > 0)).toBe(true);
    expect(b.traj.segments.some((s) => s.end.y < 0.9)).toBe(true);
  });

  test("a disc that cannot reverse turns in place and drives back into the pocket; both arrive", () => {
    const unit = BUILTIN_PROFILES.soldier;
    expect(backingMode(unit)).toBe("turn");
    const { b, report } = meeting(unit);
    expect(report.overlaps).toEqual([]);
    expect(report.wallContacts).toEqual([]);
    expect(report.arrived.sort()).toEqual(["a", "b"]);
    expect(b.traj.segments.every((s) => s.direction === 1)).toBe(true);
    expect(b.traj.segments.some((s) => s.end.y < 0.9)).toBe(true);
  });

  test("a unit that can neither reverse nor turn in place does not back up (it waits)", () => {
    expect(backingMode(BUILTIN_PROFILES.jeep)).toBe("reverse");
    const car: UnitSpec = { ...BUILTIN_PROFILES.jeep, canReverse: false };
    expect(backingMode(car)).toBe(null);
  });

  test("a step aside to a refuge and back: the stretch shared with the path is not driven twice", () => {
    const soldier = BUILTIN_PROFILES.soldier;
    // Out: 6 tiles west along the path, then 1 up into a bay; the path goes 15 tiles west.
    const out = polyline([{ x: 16.5, y: 2.5 }, { x: 10.5, y: 2.5 }, { x: 10.5, y: 1.5 }], soldier);
    const rest = polyline([{ x: 16.5, y: 2.5 }, { x: 1.5, y: 2.5 }], soldier);
    const way = asideAndBack(soldier, out, rest)!;
    const one = way.path.slice(0, way.legOne), two = way.path.slice(way.legOne);
    const len = (segs: Segment[]) => segs.reduce((d, s) => d + s.length, 0);
    expect(len(one)).toBeCloseTo(7, 6);
    // Back down out of the bay (1) and on west from there (9): not back to the start first (1 + 6 + 15).
    expect(len(two)).toBeCloseTo(10, 6);
    const at = (p: Pose, x: number, y: number) => Math.hypot(p.x - x, p.y - y);
    expect(at(one[one.length - 1].end, 10.5, 1.5)).toBeLessThan(1e-9);
    expect(at(two[0].start, 10.5, 1.5)).toBeLessThan(1e-9);
    expect(at(two[two.length - 1].end, 1.5, 2.5)).toBeLessThan(1e-9);
    for (let i = 1; i < way.path.length; i++) {
      expect(at(way.path[i].start, way.path[i - 1].end.x, way.path[i - 1].end.y), `joint ${i}`).toBeLessThan(
        1e-6,
      );
    }
    // From rest to rest at the refuge (the scheduler may wait there).
    expect(one[one.length - 1].endSpeed ?? 0).toBe(0);
    expect(two[0].startSpeed ?? 0).toBe(0);
    // A unit that cannot go back over its ground gets none.
    expect(asideAndBack({ ...BUILTIN_PROFILES.jeep, canReverse: false }, out, rest)).toBe(null);
  });
});
