/**
 * Timing a path with planned stops (service/fleetWaits.ts timePath, the waits of a space-time route): a stop the
 * unit reaches before the plan leaves it is a real stop (braking to rest, standing, setting out from rest) and
 * lasts until about the planned departure; a stop it reaches after that is driven through; every leg is checked
 * against the table, so a departure planned too early is put off until the way is clear.
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import type { Pose, Segment } from "../../src/geometry/types.ts";
import { ReservationTable } from "../../src/motion/reservations.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { type Trajectory, trajectoryEnd } from "../../src/motion/trajectory.ts";
import { nextDelay } from "../../src/service/fleetVia.ts";
import { type PlannedStop, timePath } from "../../src/service/fleetWaits.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";

const SOLDIER = BUILTIN_PROFILES.soldier;
const DT = 0.05;

function straight(from: Pose, to: { x: number; y: number }): Segment[] {
  const heading = Math.atan2(to.y - from.y, to.x - from.x);
  const segs = [lineSegment({ ...from, heading }, Math.hypot(to.x - from.x, to.y - from.y))];
  applySpeedProfile(segs, SOLDIER);
  return splitAtSpeedPhases(segs, SOLDIER);
}

const A: Pose = { x: 2.5, y: 10.5, heading: 0 };
const PATH = straight(A, { x: 22.5, y: 10.5 });

function time(table: ReservationTable, planned: PlannedStop[]): Trajectory | null {
  const horizon = table.lastMotion + 2 * DT;
  return timePath(table, "a", SOLDIER, PATH, 0, A, horizon, (d) => nextDelay(d, DT), true, planned).traj;
}

/** The waits of a trajectory: where (distance along), from when, how long; and the speeds either side. */
function waits(traj: Trajectory) {
  const out: { at: number; from: number; until: number; before: number; after: number }[] = [];
  let t = traj.startTime, d = 0;
  traj.segments.forEach((s, i) => {
    const dur = s.duration ?? 0;
    if (s.length === 0 && dur > 0) {
      out.push({
        at: d,
        from: t,
        until: t + dur,
        before: traj.segments[i - 1]?.endSpeed ?? 0,
        after: traj.segments[i + 1]?.startSpeed ?? 0,
      });
    }
    t += dur;
    d += s.length;
  });
  return out;
}

describe("timePath with planned stops", () => {
  test("a stop reached early: brakes to rest there, stands until about the planned departure, sets out again", () => {
    const table = new ReservationTable(30, 20, DT);
    const plain = time(table, [])!;
    const traj = time(table, [{ at: 5, depart: 10 }])!;
    expect(waits(plain)).toEqual([]);
    const w = waits(traj);
    expect(w.length).toBe(1);
    expect(w[0].at).toBeCloseTo(5, 6);
    expect(w[0].before).toBe(0);
    expect(w[0].after).toBe(0);
    // Leaves no earlier than a little before the planned departure (the plan's model has no acceleration).
    expect(w[0].until).toBeGreaterThanOrEqual(10 - 0.25 - 1e-9);
    expect(w[0].until).toBeLessThanOrEqual(10 + 1e-9);
    // From rest at tile 5: 15 tiles at top speed plus the time lost accelerating and braking (v / 2a + v / 2d).
    const lost = SOLDIER.maxSpeed / (2 * SOLDIER.acceleration) +
      SOLDIER.maxSpeed / (2 * SOLDIER.deceleration);
    expect(trajectoryEnd(traj)).toBeCloseTo(w[0].until + 15 / SOLDIER.maxSpeed + lost, 6);
  });

  test("a stop reached after its planned departure is driven through", () => {
    const table = new ReservationTable(30, 20, DT);
    const plain = time(table, [])!;
    const traj = time(table, [{ at: 5, depart: 0.5 }])!;
    expect(waits(traj)).toEqual([]);
    expect(trajectoryEnd(traj)).toBeCloseTo(trajectoryEnd(plain), 9);
    // No braking on the way: the speed drops to 0 only at the end.
    expect(traj.segments.slice(0, -1).every((s) => (s.endSpeed ?? 0) > 0)).toBe(true);
  });

  test("a departure planned too early is put off until the crossing unit has passed; clear of the table", () => {
    const table = new ReservationTable(30, 20, DT);
    // b drives down x = 12.5 from t = 1: it is at a's row at about 5.3 s (a, driving on, would be there at ~5.3 s).
    const b = straight({ x: 12.5, y: 2.5, heading: Math.PI / 2 }, { x: 12.5, y: 18.5 });
    const bTraj: Trajectory = {
      startTime: 1,
      startPose: { x: 12.5, y: 2.5, heading: Math.PI / 2 },
      segments: b,
    };
    table.add({ id: "b", traj: bTraj, radius: SOLDIER.boundingRadius, speed: SOLDIER.maxSpeed });
    const res = (traj: Trajectory) => ({
      id: "a",
      traj,
      radius: SOLDIER.boundingRadius,
      speed: SOLDIER.maxSpeed,
    });
    expect(table.firstConflict(res({ startTime: 0, startPose: A, segments: PATH }), 0)).not.toBeNull();
    // Planned: stop 3 tiles short of b's line (reached at 3.75 s) and leave at 4.1 s: too early, b is in the way.
    const traj = time(table, [{ at: 7, depart: 4.1 }])!;
    expect(traj).not.toBeNull();
    expect(table.firstConflict(res(traj), 0)).toBeNull();
    const w = waits(traj);
    expect(w.length).toBeGreaterThanOrEqual(1);
    expect(w[0].at).toBeCloseTo(7, 6);
    expect(w[0].until).toBeGreaterThan(4.1);
  });
});

describe("timePath with a latest arrival (the detour pass's timings that must beat a trajectory)", () => {
  test("no stop along the way is made once it cannot arrive by `latest`", () => {
    const table = new ReservationTable(30, 20, DT);
    // b crosses a's row from t = 1: driving on at once, a has to stop short of b's line and wait there.
    const b = straight({ x: 12.5, y: 2.5, heading: Math.PI / 2 }, { x: 12.5, y: 18.5 });
    table.add({
      id: "b",
      traj: { startTime: 1, startPose: { x: 12.5, y: 2.5, heading: Math.PI / 2 }, segments: b },
      radius: SOLDIER.boundingRadius,
      speed: SOLDIER.maxSpeed,
    });
    const drive = PATH.reduce((d, s) => d + (s.duration ?? 0), 0);
    const free = time(table, [])!;
    expect(waits(free).length).toBe(1);
    for (const latest of [trajectoryEnd(free) - 0.05, trajectoryEnd(free) - 0.3, trajectoryEnd(free) - 1]) {
      // As the scheduler asks (FleetScheduler.timing): start delays only up to latest - drive (the last one tried
      // may pass it: a later arrival is the caller's to throw away).
      const horizon = Math.min(table.lastMotion + 2 * DT, latest - drive);
      const traj = timePath(
        table,
        "a",
        SOLDIER,
        PATH,
        0,
        A,
        horizon,
        (d) => nextDelay(d, DT),
        true,
        [],
        latest,
      )
        .traj;
      // Before: 11.50 s for a latest of 11.25 s (a start delay of 0.5 s, then a stop, where braking and setting out
      // again already cost more than it had left).
      const stops = traj ? traj.segments.slice(0, -1).filter((s) => (s.endSpeed ?? 0) === 0).length : 0;
      if (traj && trajectoryEnd(traj) > latest + 1e-9) expect(stops).toBe(0);
      expect(
        traj === null || table.firstConflict(
              { id: "a", traj, radius: SOLDIER.boundingRadius, speed: SOLDIER.maxSpeed },
              0,
            ) === null,
      ).toBe(true);
    }
  });
});
