/**
 * Delay propagation (fleetShift.ts): a trajectory held at a time for a delay, and a late unit's delay passed on
 * to the units behind it (keeping the order of passage) instead of halting them.
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import type { Pose } from "../../src/geometry/types.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { type Trajectory, trajectoryEnd, trajectoryPose } from "../../src/motion/trajectory.ts";
import { FleetScheduler, remainingPath } from "../../src/service/fleetScheduler.ts";
import { repairLate } from "../../src/service/fleetRepair.ts";
import { shiftedAt } from "../../src/service/fleetShift.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";

const SOLDIER = BUILTIN_PROFILES.soldier;

function straight(from: Pose, to: { x: number; y: number }) {
  const heading = Math.atan2(to.y - from.y, to.x - from.x);
  const segs = [lineSegment({ ...from, heading }, Math.hypot(to.x - from.x, to.y - from.y))];
  applySpeedProfile(segs, SOLDIER);
  return splitAtSpeedPhases(segs, SOLDIER);
}

function dist(a: Pose, b: Pose): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** L drives east along y = 5, F behind it, B north along x = 10 crossing just behind it. */
function crossing() {
  const sched = new FleetScheduler(24, 24);
  const l = sched.addStanding({ id: "L", order: 0, unit: SOLDIER }, { x: 4, y: 5, heading: 0 }, 0);
  l.path = straight({ x: 4, y: 5, heading: 0 }, { x: 20, y: 5 });
  const b = sched.addStanding({ id: "B", order: 1, unit: SOLDIER }, { x: 10, y: 1.5, heading: 0 }, 0);
  b.path = straight({ x: 10, y: 1.5, heading: 0 }, { x: 10, y: 20 });
  const f = sched.addStanding({ id: "F", order: 2, unit: SOLDIER }, { x: 1, y: 5, heading: 0 }, 0);
  f.path = straight({ x: 1, y: 5, heading: 0 }, { x: 17, y: 5 });
  sched.settle(0, ["L", "B", "F"]);
  return { sched, l, b, f };
}

describe("fleet delay propagation", () => {
  test("shiftedAt: the same until the time, standing there for the delay, then the rest as before, later", () => {
    const traj: Trajectory = {
      startTime: 1,
      startPose: { x: 2, y: 2, heading: 0 },
      segments: straight({ x: 2, y: 2, heading: 0 }, { x: 12, y: 2 }),
    };
    const s = shiftedAt(traj, 3.3, 1.5)!;
    for (let t = 0; t <= 12; t += 0.05) {
      const want = t <= 3.3
        ? trajectoryPose(traj, t)
        : t <= 4.8
        ? trajectoryPose(traj, 3.3)
        : trajectoryPose(traj, t - 1.5);
      expect(dist(trajectoryPose(s, t), want), `t ${t}`).toBeLessThan(1e-9);
    }
    expect(trajectoryEnd(s)).toBeCloseTo(trajectoryEnd(traj) + 1.5, 9);
    expect(shiftedAt({ ...traj, segments: [] }, 3, 1)).toBeNull();
  });

  test("a unit moving at the report is never stopped dead (it slows down on its path, fleetSlowDown.ts)", () => {
    const { sched, l, b, f } = crossing();
    for (const u of [l, b, f]) expect(u.status).toBe("moving");
    const oldF = f.traj;
    const at = trajectoryPose(l.traj, 1.6);
    l.path = remainingPath(l.traj, 1.6, l.unit);
    repairLate(sched, l, at, 2.6);
    // F follows L at speed at t = 2.6: whatever F's new trajectory is, it does not stand still from 2.6 at once,
    // and nobody is halted for it.
    expect([l, b, f].map((u) => u.brake)).toEqual([undefined, undefined, undefined]);
    if (f.traj !== oldF) {
      const p0 = trajectoryPose(f.traj, 2.6), p1 = trajectoryPose(f.traj, 2.65);
      expect(dist(p0, p1)).toBeGreaterThan(0);
    }
    let gap = Infinity;
    for (let t = 2.6; t < 30; t += 0.005) {
      const ps = [l, b, f].map((u) => trajectoryPose(u.traj, t));
      for (let i = 0; i < 3; i++) {
        for (let j = i + 1; j < 3; j++) gap = Math.min(gap, dist(ps[i], ps[j]) - 0.6);
      }
    }
    expect(gap).toBeGreaterThanOrEqual(0);
  });
});
