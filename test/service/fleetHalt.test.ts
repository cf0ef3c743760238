/**
 * Halting a fleet unit (service/fleetHalt.ts) and a repair's roll-back of it (service/fleetRepair.ts snapshot,
 * restore): a unit halted again while it still brakes from an earlier halt brakes on to the same stop and keeps
 * the path after it; a roll-back gives a braking unit back its braking (`brake`) and clears a hard stop's note.
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { trajectoryEndPose } from "../../src/motion/trajectory.ts";
import { hardStop } from "../../src/service/fleetHalt.ts";
import { restore, snapshot } from "../../src/service/fleetRepair.ts";
import { FleetScheduler } from "../../src/service/fleetScheduler.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";

const SOLDIER = BUILTIN_PROFILES.soldier;

const length = (segs: { length: number }[]) => segs.reduce((d, s) => d + s.length, 0);

/** A soldier driving 20 tiles east from (5, 5), scheduled at t = 0. */
function driving() {
  const sched = new FleetScheduler(40, 40);
  const u = sched.addStanding({ id: "s", order: 0, unit: SOLDIER }, { x: 5, y: 5, heading: 0 }, 0);
  const segs = [lineSegment({ x: 5, y: 5, heading: 0 }, 20)];
  applySpeedProfile(segs, SOLDIER);
  u.path = splitAtSpeedPhases(segs, SOLDIER);
  sched.settle(0, ["s"]);
  expect(u.traj.segments.length).toBeGreaterThan(0);
  return { sched, u };
}

describe("halts", () => {
  test("halted again while braking: it brakes on to the same stop and keeps the path after it", () => {
    const { sched, u } = driving();
    const stop = sched.haltAt(u, 3);
    sched.commit(u, u.traj);
    expect(u.traj).toBe(u.brake);
    const left = length(u.path);
    // 3 s from rest (0.5 tiles in the 0.5 s to 2 tiles/s, then 5) and 0.5 tiles of braking: 14 tiles left.
    expect(left).toBeCloseTo(20 - (0.5 + 2.5 * 2) - 0.5, 6);
    for (const t of [3, 3.1, 3.3]) {
      const again = sched.haltAt(u, t);
      sched.commit(u, u.traj);
      expect(Math.hypot(again.x - stop.x, again.y - stop.y), `t = ${t}`).toBeLessThan(1e-9);
      expect(length(u.path), `t = ${t}`).toBeCloseTo(left, 9);
    }
    // After the braking has ended: it stands at the stop, the path unchanged.
    const after = sched.haltAt(u, 4);
    expect(Math.hypot(after.x - stop.x, after.y - stop.y)).toBeLessThan(1e-9);
    expect(length(u.path)).toBeCloseTo(left, 9);
    expect(Math.hypot(u.path[0].start.x - stop.x, u.path[0].start.y - stop.y)).toBeLessThan(1e-9);
  });

  test("a roll-back gives a braking unit back its braking and clears a hard stop's note", () => {
    const { sched, u } = driving();
    sched.haltAt(u, 3);
    sched.commit(u, u.traj);
    const braking = u.traj, path = u.path;
    const before = snapshot(sched);
    // A way stops it at once mid-braking (its braking met a unit stopped in the same settle)...
    hardStop(u, 3.1);
    sched.commit(u, u.traj);
    expect(u.brake).toBeUndefined();
    expect(u.hardStop).toMatch(/stopped at once/);
    // ... and is rolled back: it brakes as before, and its next message says nothing of a hard stop.
    restore(sched, before);
    expect(u.traj).toBe(braking);
    expect(u.brake).toBe(braking);
    expect(u.hardStop).toBeUndefined();
    expect(u.path).toBe(path);
    expect(sched.table.get("s")?.traj).toBe(braking);
    // Halted again later in its braking, it still ends where the braking does, with its path.
    const stop = sched.haltAt(u, 3.2);
    const end = trajectoryEndPose(braking);
    expect(Math.hypot(stop.x - end.x, stop.y - end.y)).toBeLessThan(1e-9);
    expect(length(u.path)).toBeCloseTo(length(path), 9);
  });
});
