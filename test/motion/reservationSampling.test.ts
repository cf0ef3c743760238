/**
 * The reservation table's path sampling (motion/reservationSampling.ts): a path's sampled poses are the
 * trajectory's poses in closed form at the table's sample times, on straight pieces (whose direction is worked
 * out once per segment) as on arcs, forward and reverse, at every start phase; filled piece by piece (as far as
 * a check reads) they are the same as filled at once.
 */
import { describe, expect, test } from "vitest";
import type { Pose, Segment } from "../../src/geometry/types.ts";
import { arcSegment, lineSegment } from "../../src/geometry/segment.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { PathSampler } from "../../src/motion/reservationSampling.ts";
import { type Trajectory, trajectoryEnd, trajectoryPose } from "../../src/motion/trajectory.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";

const unit = BUILTIN_PROFILES.soldier;

/** Straight pieces and arcs joined end to end, some driven in reverse, profiled from rest to rest. */
function path(seed: number): Segment[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const segs: Segment[] = [];
  let at: Pose = { x: 20, y: 20, heading: rnd() * 6 - 3 };
  for (let i = 0; i < 8; i++) {
    const dir = rnd() < 0.2 ? -1 : 1;
    const len = 0.3 + rnd() * 4;
    const seg = rnd() < 0.6
      ? lineSegment(at, len, dir)
      : arcSegment(at, (rnd() - 0.5) * 1.5 || 0.3, len, dir);
    segs.push(seg);
    at = seg.end;
  }
  applySpeedProfile(segs, unit);
  return splitAtSpeedPhases(segs, unit);
}

describe("PathSampler", () => {
  test.each([1, 2, 3, 4, 5])("path %i: sampled poses are the trajectory's at every sample time", (seed) => {
    const sampler = new PathSampler(0.05);
    const segments = path(seed);
    for (const startTime of [0, 0.013, 1.25, 7.049]) {
      const traj: Trajectory = { startTime, startPose: segments[0].start, segments };
      const got = sampler.sampled(traj, trajectoryEnd(traj) - startTime, null);
      const k1 = Math.round((startTime + got.phase) / 0.05);
      expect(got.xs.length).toBeGreaterThan(20);
      for (let j = 0; j < got.xs.length; j++) {
        const p = trajectoryPose(traj, (k1 + j) * 0.05);
        expect(Math.abs(got.xs[j] - p.x)).toBeLessThan(1e-9);
        expect(Math.abs(got.ys[j] - p.y)).toBeLessThan(1e-9);
      }
    }
  });

  test.each([1, 2, 3])(
    "path %i: filled piece by piece as a check reads on, the same poses to the bit",
    (seed) => {
      const segments = path(seed);
      let r = seed;
      const rnd = () => (r = (r * 1103515245 + 12345) % 2147483648) / 2147483648;
      for (const startTime of [0, 0.013, 7.049]) {
        const traj: Trajectory = { startTime, startPose: segments[0].start, segments };
        const duration = trajectoryEnd(traj) - startTime;
        const whole = new PathSampler(0.05).sampled(traj, duration, null);
        const sampler = new PathSampler(0.05);
        // Nothing filled at first; then reads here and there ahead (a hint), and on to the end.
        const lazy = sampler.sampled(traj, duration, null, -1);
        expect(lazy.filled).toBe(0);
        for (let j = 0; j < lazy.xs.length; j += 1 + Math.floor(rnd() * 60)) {
          if (j >= lazy.filled) sampler.fill(lazy, j);
          expect(lazy.filled).toBeGreaterThan(j);
        }
        // The cached path is the same object, filled the rest of the way when asked for all of it.
        expect(sampler.sampled(traj, duration, null)).toBe(lazy);
        expect(lazy.filled).toBe(lazy.xs.length);
        expect([...lazy.xs]).toEqual([...whole.xs]);
        expect([...lazy.ys]).toEqual([...whole.ys]);
      }
    },
  );

  test.each([1, 2, 3])(
    "path %i: a read far ahead skips the walk there, a read before walks again, the same poses to the bit",
    (seed) => {
      const segments = path(seed);
      const traj: Trajectory = { startTime: 0.013, startPose: segments[0].start, segments };
      const duration = trajectoryEnd(traj) - traj.startTime;
      const whole = new PathSampler(0.05).sampled(traj, duration, null);
      const n = whole.xs.length;
      const sampler = new PathSampler(0.05);
      const lazy = sampler.sampled(traj, duration, null, -1);
      // A check from well into the path (a wait at a stop on the way): nothing before it is walked.
      const far = Math.floor(n * 0.6);
      sampler.fill(lazy, far);
      expect(lazy.from).toBe(far);
      expect(lazy.filled).toBeGreaterThan(far);
      expect(lazy.xs[far]).toBe(whole.xs[far]);
      // Then one from earlier: walked again from there.
      const near = Math.floor(n * 0.2);
      sampler.fill(lazy, near);
      expect(lazy.from).toBe(near);
      for (let j = near; j < lazy.filled; j++) {
        expect([lazy.xs[j], lazy.ys[j]]).toEqual([whole.xs[j], whole.ys[j]]);
      }
      // Asked for all of it (a reservation): every pose, from the start.
      expect(sampler.sampled(traj, duration, null)).toBe(lazy);
      expect([lazy.from, lazy.filled]).toEqual([0, n]);
      expect([...lazy.xs]).toEqual([...whole.xs]);
      expect([...lazy.ys]).toEqual([...whole.ys]);
    },
  );
});
