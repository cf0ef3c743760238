/**
 * The reservation table and timed trajectories: closed-form poses in time, and the sampled overlap test with its
 * motion margin (head-on meetings found, a pass behind found clear, standing forever reported as such).
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { ReservationTable } from "../../src/motion/reservations.ts";
import {
  standing,
  type Trajectory,
  trajectoryEnd,
  trajectoryPose,
  waitSegment,
} from "../../src/motion/trajectory.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";

const SOLDIER = BUILTIN_PROFILES.soldier;

function drive(x: number, y: number, heading: number, length: number, startTime: number): Trajectory {
  const segs = [lineSegment({ x, y, heading }, length)];
  applySpeedProfile(segs, SOLDIER);
  return { startTime, startPose: { x, y, heading }, segments: splitAtSpeedPhases(segs, SOLDIER) };
}

const res = (id: string, traj: Trajectory) => ({ id, traj, radius: 0.3, speed: SOLDIER.maxSpeed });

describe("trajectory", () => {
  test("poses follow length = (v0 + v1) / 2 * duration; stands before and after", () => {
    const t = drive(1, 1, 0, 10, 2);
    expect(trajectoryPose(t, 0)).toMatchObject({ x: 1, y: 1 });
    const end = trajectoryEnd(t);
    expect(trajectoryPose(t, end + 5).x).toBeCloseTo(11, 9);
    // Monotone, never faster than max speed.
    let last = 1;
    for (let time = 2; time <= end; time += 0.01) {
      const x = trajectoryPose(t, time).x;
      expect(x).toBeGreaterThanOrEqual(last - 1e-12);
      expect(x - last).toBeLessThanOrEqual(SOLDIER.maxSpeed * 0.01 + 1e-9);
      last = x;
    }
  });
});

describe("ReservationTable", () => {
  test("a head-on meeting conflicts; starting after the other has passed does not", () => {
    const table = new ReservationTable(32, 32);
    table.add(res("a", drive(2.5, 5.5, 0, 20, 0)));
    const headOn = table.firstConflict(res("b", drive(22.5, 5.5, Math.PI, 20, 0)), 0);
    expect(headOn?.id).toBe("a");
    // Crossing behind: b crosses a's line at x = 12.5 long after a passed.
    const behind = table.firstConflict(res("b", drive(12.5, 1.5, Math.PI / 2, 8, 20)), 0);
    expect(behind).toBeNull();
    // The same crossing timed to meet a conflicts (a passes x = 12.5 at about 5.5 s).
    const meet = table.firstConflict(res("b", drive(12.5, 1.5, Math.PI / 2, 8, 3)), 0);
    expect(meet?.id).toBe("a");
    expect(meet?.forever).toBe(false);
  });

  test("standing units apart are fine; a disc closer than the sum of radii is not", () => {
    const table = new ReservationTable(16, 16);
    table.add(res("a", standing({ x: 5, y: 5, heading: 0 }, 0)));
    expect(table.firstConflict(res("b", standing({ x: 5.625, y: 5, heading: 0 }, 0)), 0)).toBeNull();
    expect(table.firstConflict(res("b", standing({ x: 5.5, y: 5, heading: 0 }, 0)), 0)?.forever).toBe(true);
    table.remove("a");
    expect(table.firstConflict(res("b", standing({ x: 5.5, y: 5, heading: 0 }, 0)), 0)).toBeNull();
  });

  test("the motion margin: samples 50 ms apart never hide a touch in between", () => {
    // Perpendicular crossings at many time offsets: whenever the table says clear, the exact minimum distance
    // (at 1 ms steps) is at least the sum of radii.
    for (let offset = 0; offset < 3; offset += 0.037) {
      const table = new ReservationTable(32, 32);
      const a = drive(2.5, 10.5, 0, 20, 0);
      table.add(res("a", a));
      const b = drive(12.5, 2.5, Math.PI / 2, 16, offset);
      const clear = table.firstConflict(res("b", b), 0) === null;
      let min = Infinity;
      for (let t = 0; t < 20; t += 0.001) {
        const p = trajectoryPose(a, t), q = trajectoryPose(b, t);
        min = Math.min(min, Math.hypot(p.x - q.x, p.y - q.y));
      }
      if (clear) expect(min).toBeGreaterThanOrEqual(0.6 - 1e-9);
    }
  });

  test("a path's cached samples and a hint answer as a fresh check does (conflict or none)", () => {
    // Many crossings of one reserved drive; the candidate's segments array is reused across start times (the
    // table keeps its samples), a fresh copy is checked beside it, and a hint never turns a conflict into none.
    const table = new ReservationTable(32, 32);
    // Off-grid numbers: an exact tie between a distance and a gap may fall either way by one ulp.
    table.add(res("a", drive(2.5, 10.37, 0, 20, 0.013)));
    const reused = drive(12.61, 2.5, Math.PI / 2, 16, 0).segments;
    for (let m = 0; m < 160; m++) {
      const fresh = drive(12.61, 2.5, Math.PI / 2, 16, m * 0.05);
      const a = table.firstConflict(res("b", { ...fresh, segments: reused }), 0);
      const b = table.firstConflict(res("b", fresh), 0);
      expect(a).toEqual(b);
      for (const hint of [0, 2, 4, 6]) {
        const c = table.firstConflict(res("b", fresh), 0, undefined, hint);
        expect(c === null).toBe(b === null);
      }
    }
  });
});

describe("ReservationTable removal", () => {
  test("after adds, replacements, removals, roll-backs and a compaction every query answers as a table built from the survivors alone", () => {
    // Random drives crossing a small area (many share time slices and cells), some replaced, some removed, some
    // removed and re-added with their old trajectory (the repair's roll-back): removal must take out exactly
    // that unit's samples and spans, and leave the others' (including a second sample of the same unit in the
    // same slice and cell) in place.
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const randomDrive = () =>
      rnd() < 0.15
        ? standing({ x: 2 + rnd() * 16, y: 2 + rnd() * 16, heading: 0 }, rnd() * 3)
        : drive(2 + rnd() * 16, 2 + rnd() * 16, rnd() * 2 * Math.PI, 1 + rnd() * 6, rnd() * 3);
    const live = new Map<string, Trajectory>();
    const table = new ReservationTable(24, 24, 0.05, true);
    const first = new Map<string, Trajectory>();
    for (let i = 0; i < 40; i++) {
      const t = randomDrive();
      first.set(`u${i}`, t);
      live.set(`u${i}`, t);
      table.add({ ...res(`u${i}`, t), deceleration: SOLDIER.deceleration });
    }
    for (let step = 0; step < 60; step++) {
      // Removed samples are dropped from the time slices (done on its own when they outnumber the live ones).
      if (step === 30) table.compact();
      const id = `u${Math.floor(rnd() * 40)}`;
      const r = rnd();
      if (r < 0.35) {
        table.remove(id);
        live.delete(id);
      } else if (r < 0.7) {
        const t = randomDrive();
        live.set(id, t);
        table.add({ ...res(id, t), deceleration: SOLDIER.deceleration });
      } else {
        live.set(id, first.get(id)!);
        table.add({ ...res(id, first.get(id)!), deceleration: SOLDIER.deceleration });
      }
    }
    const fresh = new ReservationTable(24, 24, 0.05, true);
    for (const [id, t] of live) fresh.add({ ...res(id, t), deceleration: SOLDIER.deceleration });
    expect([...table.ids()].sort()).toEqual([...live.keys()].sort());
    let conflicts = 0;
    for (let q = 0; q < 120; q++) {
      const cand = { ...res("q", randomDrive()), deceleration: SOLDIER.deceleration };
      const want = fresh.conflictsWith(cand, 0);
      expect(table.conflictsWith(cand, 0)).toEqual(want);
      expect(table.firstConflict(cand, 0)).toEqual(fresh.firstConflict(cand, 0));
      conflicts += want.size;
    }
    // The queries do meet units (the comparison is not between two empty answers).
    expect(conflicts).toBeGreaterThan(20);
    // A unit standing from t = 0 is checked through the per-cell index of all times (time-sorted, early exit);
    // the same unit waiting (a wait segment, speed 0) through the time slices, sample by sample: the same
    // earliest time and the same units.
    let met = 0;
    for (let q = 0; q < 150; q++) {
      const at = { x: 2 + rnd() * 16, y: 2 + rnd() * 16, heading: 0 };
      const still = { id: "q", traj: standing(at, 0), radius: 0.3, speed: 0 };
      const wait = { ...still, traj: { startTime: 0, startPose: at, segments: [waitSegment(at, 40)] } };
      const from = Math.floor(rnd() * 40) * 0.05;
      expect(table.firstConflict(still, from)?.time ?? -1, `at ${at.x}, ${at.y} from ${from}`)
        .toBeCloseTo(table.firstConflict(wait, from)?.time ?? -1, 9);
      expect(table.conflictsWith(still, from)).toEqual(table.conflictsWith(wait, from));
      if (table.firstConflict(still, from)) met++;
    }
    expect(met).toBeGreaterThan(10);
    for (const id of live.keys()) table.remove(id);
    expect(table.conflictsWith({ ...res("q", drive(1, 12, 0, 20, 0)), deceleration: 4 }, 0).size).toBe(0);
  });
});
