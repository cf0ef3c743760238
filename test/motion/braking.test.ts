/**
 * Braking (motion/braking.ts) and the reservation table's braking envelopes: a tank halted at cruise brakes at
 * its deceleration along its own path (never harder, never faster than it was going, ending at rest exactly
 * its stopping distance further on); the envelope's points cover the stretch to the stop; two units whose
 * footprints pass clear but whose stopping stretches would meet are a conflict with envelopes and none without.
 */
import { describe, expect, test } from "vitest";
import { arcSegment, lineSegment } from "../../src/geometry/segment.ts";
import type { Pose, Segment } from "../../src/geometry/types.ts";
import { brakeFrom, envelopeInto, speedAtTime, stoppingDistance } from "../../src/motion/braking.ts";
import { ReservationTable } from "../../src/motion/reservations.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { type Trajectory, trajectoryPose } from "../../src/motion/trajectory.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";

const TANK = BUILTIN_PROFILES.tank;

function profiled(segs: Segment[], unit = TANK): Segment[] {
  applySpeedProfile(segs, unit);
  return splitAtSpeedPhases(segs, unit);
}

/** A tank's S-shaped path: a straight, a left arc, a right arc, a straight. */
function sPath(): Segment[] {
  const a = lineSegment({ x: 2, y: 10, heading: 0 }, 6);
  const b = arcSegment(a.end, 1 / 3, 3, 1);
  const c = arcSegment(b.end, -1 / 3, 3, 1);
  const d = lineSegment(c.end, 8);
  return profiled([a, b, c, d]);
}

/** The speed of a trajectory at a time (0 while it stands). */
function speedOf(t: Trajectory, time: number): number {
  let tau = time - t.startTime;
  if (tau < 0) return 0;
  for (const s of t.segments) {
    if (tau < (s.duration ?? 0)) return speedAtTime(s, tau);
    tau -= s.duration ?? 0;
  }
  return 0;
}

describe("brakeFrom", () => {
  test("a tank halted on its way brakes at its deceleration, never faster than it went, to its stop", () => {
    const path = sPath();
    const traj: Trajectory = { startTime: 1, startPose: path[0].start, segments: path };
    const total = path.reduce((d, s) => d + (s.duration ?? 0), 0);
    let halts = 0;
    for (let t = 1.5; t < 1 + total - 0.2; t += 0.37) {
      const b = brakeFrom(traj, t, TANK.deceleration);
      const v = speedOf(traj, t);
      if (v < 1e-6) continue;
      expect(b).not.toBeNull();
      halts++;
      const br = b!.traj;
      expect(br.startTime).toBe(t);
      expect(
        Math.hypot(br.startPose.x - trajectoryPose(traj, t).x, br.startPose.y - trajectoryPose(traj, t).y),
      )
        .toBeLessThan(1e-9);
      expect(br.segments[0].startSpeed).toBeCloseTo(v, 9);
      expect(br.segments[br.segments.length - 1].endSpeed).toBe(0);
      expect(b!.distance).toBeCloseTo(stoppingDistance(v, TANK.deceleration), 9);
      expect(b!.stopTime - t).toBeCloseTo(v / TANK.deceleration, 9);
      let prev: Pose = br.startPose;
      for (const s of br.segments) {
        // The segment contract (length = mean speed * duration), joins, and the deceleration.
        expect(s.length).toBeCloseTo(((s.startSpeed! + s.endSpeed!) / 2) * s.duration!, 9);
        expect(Math.hypot(s.start.x - prev.x, s.start.y - prev.y)).toBeLessThan(1e-9);
        expect((s.startSpeed! - s.endSpeed!) / s.duration!).toBeLessThanOrEqual(TANK.deceleration + 1e-9);
        expect(s.endSpeed!).toBeLessThanOrEqual(s.startSpeed!);
        prev = s.end;
      }
      // Along the stretch it is never faster than the original trajectory at the same place (so every cap
      // the original kept, top speed and curves, is kept): compare at equal distances.
      for (let k = 1; k < 20; k++) {
        const d = (k / 20) * b!.distance;
        const vb = Math.sqrt(Math.max(0, v * v - 2 * TANK.deceleration * d));
        // The original's speed at that distance: sample its time until it has driven d further.
        let lo = t, hi = 1 + total;
        for (let it = 0; it < 50; it++) {
          const mid = (lo + hi) / 2;
          if (drivenBetween(traj, t, mid) < d) lo = mid;
          else hi = mid;
        }
        expect(vb).toBeLessThanOrEqual(speedOf(traj, lo) + 1e-6);
      }
      // The rest of the geometry starts where it stops and ends at the path's end.
      const rest = b!.rest;
      if (rest.length === 0) continue;
      expect(Math.hypot(rest[0].start.x - b!.stop.x, rest[0].start.y - b!.stop.y)).toBeLessThan(1e-9);
      const end = path[path.length - 1].end;
      expect(Math.hypot(rest[rest.length - 1].end.x - end.x, rest[rest.length - 1].end.y - end.y))
        .toBeLessThan(1e-9);
    }
    expect(halts).toBeGreaterThan(10);
  });

  test("no braking at rest, before the start, after the end, or with deceleration 0 (stops at once)", () => {
    const path = sPath();
    const traj: Trajectory = { startTime: 1, startPose: path[0].start, segments: path };
    expect(brakeFrom(traj, 0.5, TANK.deceleration)).toBeNull();
    expect(brakeFrom(traj, 1000, TANK.deceleration)).toBeNull();
    expect(brakeFrom(traj, 3, 0)).toBeNull();
    expect(brakeFrom({ startTime: 0, startPose: path[0].start, segments: [] }, 3, 3)).toBeNull();
    expect(stoppingDistance(4, 0)).toBe(0);
    expect(stoppingDistance(4, 3)).toBeCloseTo(16 / 6, 12);
  });

  test("a soldier braking through a corner (its heading jumps there): each piece's own geometry reaches its end", () => {
    // A fluid-turning unit's path turns at a corner between two lines: the heading jumps from west to north.
    const SOLDIER = BUILTIN_PROFILES.soldier;
    const a = lineSegment({ x: 30, y: 10, heading: Math.PI }, 10);
    const b = lineSegment({ x: 20, y: 10, heading: Math.PI / 2 }, 5);
    const path = profiled([a, b], SOLDIER);
    const traj: Trajectory = { startTime: 0, startPose: path[0].start, segments: path };
    const total = path.reduce((d, s) => d + (s.duration ?? 0), 0);
    let across = 0;
    for (let t = 0.3; t < total - 0.1; t += 0.01) {
      const br = brakeFrom(traj, t, SOLDIER.deceleration);
      if (!br) continue;
      const pieces = br.traj.segments;
      // Braking from before the corner to beyond it.
      if (br.traj.startPose.x > 20 + 1e-6 && br.stop.y > 10 + 1e-6) across++;
      for (const s of pieces) {
        // Integrated from its start pose, heading, curvature and length (as a client does), a piece ends at its
        // end; so the braking's last pose is where it stops.
        const h = s.start.heading;
        expect(
          Math.hypot(
            s.start.x + s.length * Math.cos(h) - s.end.x,
            s.start.y + s.length * Math.sin(h) - s.end.y,
          ),
        )
          .toBeLessThan(1e-9);
      }
      const stop = trajectoryPose(br.traj, br.stopTime - 1e-9);
      expect(Math.hypot(stop.x - br.stop.x, stop.y - br.stop.y)).toBeLessThan(1e-6);
      // It stops on its own path: on the line before the corner or on the one after it.
      expect(Math.abs(br.stop.y - 10) < 1e-9 || Math.abs(br.stop.x - 20) < 1e-9).toBe(true);
    }
    expect(across).toBeGreaterThan(3);
  });

  test("a halt on the final braking stops where the path ends (the envelope is the rest of the leg)", () => {
    const path = profiled([lineSegment({ x: 2, y: 2, heading: 0 }, 10)]);
    const traj: Trajectory = { startTime: 0, startPose: path[0].start, segments: path };
    const total = path.reduce((d, s) => d + (s.duration ?? 0), 0);
    const b = brakeFrom(traj, total - 0.5, TANK.deceleration)!;
    expect(b.stop.x).toBeCloseTo(12, 6);
    expect(b.rest).toHaveLength(0);
  });
});

/** Path distance driven between two times (the trajectory's own speed integrated). */
function drivenBetween(t: Trajectory, a: number, b: number): number {
  let d = 0;
  const n = 200;
  for (let i = 0; i < n; i++) d += speedOf(t, a + ((i + 0.5) / n) * (b - a)) * ((b - a) / n);
  return d;
}

describe("envelopeInto", () => {
  test("points every spacing along the path to the stop, corners included, the stop last", () => {
    const a = lineSegment({ x: 0, y: 0, heading: 0 }, 1);
    const b = lineSegment({ x: 1, y: 0, heading: Math.PI / 2 }, 5);
    const out: number[] = [];
    const n = envelopeInto([a, b], 0, 0.5, 2, 0.3, out);
    expect(out.length).toBe(2 * n);
    const pts = Array.from({ length: n }, (_, i) => [out[2 * i], out[2 * i + 1]]);
    // The corner (1, 0) is one of them; the last is 2 tiles on: 0.5 along a, then 1.5 up b.
    expect(pts.some(([x, y]) => Math.hypot(x - 1, y) < 1e-9)).toBe(true);
    expect(pts[n - 1][0]).toBeCloseTo(1, 9);
    expect(pts[n - 1][1]).toBeCloseTo(1.5, 9);
    // Consecutive points (from the start) no more than the spacing apart.
    let prev = [0.5, 0];
    for (const p of pts) {
      expect(Math.hypot(p[0] - prev[0], p[1] - prev[1])).toBeLessThanOrEqual(0.3 + 1e-9);
      prev = p;
    }
    expect(envelopeInto([a, b], 0, 0.5, 0, 0.3, [])).toBe(0);
  });
});

describe("braking envelopes in the reservation table", () => {
  /** A tank driving east along y at full speed from x0 (profiled from rest). */
  const east = (x0: number, y: number, len: number, start = 0): Trajectory => {
    const segs = profiled([lineSegment({ x: x0, y, heading: 0 }, len)]);
    return { startTime: start, startPose: segs[0].start, segments: segs };
  };

  test("a tank crossing just behind another's stopping stretch is a conflict with envelopes only", () => {
    // A drives east along y = 10 for 30 tiles; B drives south across x = 20 and passes clear of A's footprint
    // but through the stretch A needs to stop in (2.67 tiles ahead of A at 4 tiles/s).
    const a = east(2, 10, 30);
    const down = profiled([lineSegment({ x: 0, y: 0, heading: Math.PI / 2 }, 20)]);
    // A reaches x = 20 at about 5.83 s (1.33 s up to speed over 2.67 tiles, then 4 tiles/s).
    let clearOnlyWithout = 0;
    for (let st = 0; st < 10; st += 0.05) {
      const bTraj: Trajectory = {
        startTime: st,
        startPose: shift(down, 20, 0)[0].start,
        segments: shift(down, 20, 0),
      };
      for (const withEnv of [false, true]) {
        const t = new ReservationTable(40, 40);
        const dec = withEnv ? TANK.deceleration : 0;
        t.add({ id: "a", traj: a, radius: 0.9, speed: 4, deceleration: dec });
        const c = t.firstConflict({ id: "b", traj: bTraj, radius: 0.9, speed: 4, deceleration: dec }, 0);
        if (!withEnv && c !== null) break;
        if (withEnv && c !== null) clearOnlyWithout++;
      }
    }
    // Some start times pass clear of A's footprint but not of where A would stop.
    expect(clearOnlyWithout).toBeGreaterThan(0);
  });

  test("deceleration 0 reserves no envelope: a unit standing just ahead of the stopping stretch is clear", () => {
    const a = east(2, 10, 6); // stops at x = 8 (rest to rest)
    for (const dec of [0, TANK.deceleration]) {
      const t = new ReservationTable(40, 40);
      t.add({ id: "a", traj: a, radius: 0.9, speed: 4, deceleration: dec });
      // A unit standing 2 tiles past A's goal: clear of its footprint and of its braking (which ends at the goal).
      const s: Trajectory = { startTime: 0, startPose: { x: 10.0, y: 10, heading: 0 }, segments: [] };
      expect(t.firstConflict({ id: "s", traj: s, radius: 0.9, speed: 4 }, 0)).toBeNull();
    }
  });

  test("units halted together brake inside disjoint envelopes: a follower cleared with envelopes never meets its leader", () => {
    // A tank follows another on the same line; the follower starts as early as the table allows. Halting
    // both at any moment (each braking at its deceleration) keeps them apart.
    const lead = east(5, 5, 15);
    const table = new ReservationTable(40, 40);
    table.add({ id: "lead", traj: lead, radius: 0.9, speed: 4, deceleration: TANK.deceleration });
    let st = 0;
    // It starts and stops 3 tiles behind the leader.
    const follow = (s: number) => east(2, 5, 15, s);
    const res = (s: number) => ({
      id: "f",
      traj: follow(s),
      radius: 0.9,
      speed: 4,
      deceleration: TANK.deceleration,
    });
    while (st < 30 && table.firstConflict(res(st), 0)) st += 0.05;
    expect(st).toBeLessThan(30);
    const f = follow(st);
    let checked = 0;
    for (let t = st + 0.1; t < st + 6; t += 0.1) {
      const bl = brakeFrom(lead, t, TANK.deceleration), bf = brakeFrom(f, t, TANK.deceleration);
      if (!bl || !bf) continue;
      checked++;
      for (let s = t; s < t + 2; s += 0.01) {
        const pl = trajectoryPose(bl.traj, s), pf = trajectoryPose(bf.traj, s);
        expect(Math.hypot(pl.x - pf.x, pl.y - pf.y)).toBeGreaterThanOrEqual(1.8 - 1e-9);
      }
    }
    expect(checked).toBeGreaterThan(5);
  });
});

/** Segments moved by (dx, dy). */
function shift(segs: Segment[], dx: number, dy: number): Segment[] {
  return segs.map((s) => ({
    ...s,
    start: { ...s.start, x: s.start.x + dx, y: s.start.y + dy },
    end: { ...s.end, x: s.end.x + dx, y: s.end.y + dy },
  }));
}
