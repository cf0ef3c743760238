/**
 * Speed profiles: hand-computed cases and invariants on random paths, checked against an independent dense
 * integration of the speed-versus-distance envelope.
 */
import { describe, expect, test } from "vitest";
import {
  applySpeedProfile,
  fluidTurningRadius,
  speedAt,
  splitAtSpeedPhases,
  trapezoidDuration,
} from "../../src/motion/speedProfile.ts";
import { arcSegment, lineSegment, poseAtTime, segmentPiece } from "../../src/geometry/segment.ts";
import type { Segment } from "../../src/geometry/types.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { rng } from "../helpers/rng.ts";

function unit(over: Partial<UnitSpec>): UnitSpec {
  return {
    ...BUILTIN_PROFILES.agent,
    maxSpeed: 4,
    acceleration: 2,
    deceleration: 1,
    lateralAcceleration: 2,
    turningRadius: 1,
    ...over,
  };
}

/** Independent: seconds to drive a segment by integrating ds / v(s) on a fine grid, v the ramp envelope. */
function integrateDuration(len: number, v0: number, v1: number, cap: number, a: number, b: number): number {
  // Substitution s = L (3w^2 - 2w^3) keeps ds / v bounded where v -> 0 like sqrt(s) at a stop.
  const steps = 20000;
  let t = 0;
  for (let i = 0; i < steps; i++) {
    const w = (i + 0.5) / steps;
    const s = len * (3 * w * w - 2 * w * w * w);
    const ds = (len * 6 * w * (1 - w)) / steps;
    const v = Math.min(cap, Math.sqrt(v0 * v0 + 2 * a * s), Math.sqrt(v1 * v1 + 2 * b * (len - s)));
    t += ds / v;
  }
  return t;
}

describe("profiles that continue a moving unit (stream splices)", () => {
  test("speedAt follows the trapezoid: the ramp up, the cap, the ramp down", () => {
    // 20 tiles, cap 4, a = 2, b = 1: up to 4 by 4 tiles, cruise to 12, brake to 0 at 20.
    const u = unit({});
    const seg = lineSegment({ x: 0, y: 0, heading: 0 }, 20);
    applySpeedProfile([seg], u);
    expect(speedAt(seg, 0, u)).toBe(0);
    expect(speedAt(seg, 1, u)).toBeCloseTo(2, 12);
    expect(speedAt(seg, 8, u)).toBeCloseTo(4, 12);
    expect(speedAt(seg, 18, u)).toBeCloseTo(2, 12);
    expect(speedAt(seg, 20, u)).toBe(0);
    expect(speedAt(lineSegment({ x: 0, y: 0, heading: 0 }, 5), 2, u)).toBe(0); // no profile
  });

  test("a continued profile starts at the unit's speed, or is NaN when the unit cannot keep it", () => {
    const u = unit({ deceleration: 2 });
    const previous = lineSegment({ x: 0, y: 0, heading: 0 }, 10);
    const at = previous.end;
    // Straight on for 10 tiles from 3 tiles/s: starts at 3, speeds join, ends at rest.
    const on = [lineSegment(at, 4), lineSegment({ ...at, x: at.x + 4 }, 6)];
    const total = applySpeedProfile(on, u, { previous, speed: 3 });
    expect(on[0].startSpeed).toBe(3);
    expect(on[0].endSpeed).toBe(on[1].startSpeed);
    expect(on[1].endSpeed).toBe(0);
    // 3 -> 4 over 1.75 tiles (0.5 s), cruise 2.25 tiles, brake 4 tiles (2 s) ... as trapezoids per segment.
    const expected = on.reduce(
      (t, seg) => t + integrateDuration(seg.length, seg.startSpeed!, seg.endSpeed!, 4, 2, 2),
      0,
    );
    expect(total).toBeCloseTo(expected, 3);
    // A cusp right at the joint: the unit would have to stop there.
    expect(applySpeedProfile([lineSegment(at, 3, -1)], u, { previous, speed: 3 })).toBeNaN();
    // An arc whose lateral cap (sqrt(2 * 1) = 1.41) is below the speed, right at the joint.
    expect(applySpeedProfile([arcSegment(at, 1, 2)], u, { previous, speed: 3 })).toBeNaN();
    // A cusp 1 tile on: stopping from 3 takes 9 / (2 * 2) = 2.25 tiles; 3 tiles is room enough.
    const cuspAfter = (
      room: number,
    ) => [lineSegment(at, room), lineSegment({ ...at, x: at.x + room }, 2, -1)];
    expect(applySpeedProfile(cuspAfter(1), u, { previous, speed: 3 })).toBeNaN();
    const roomy = cuspAfter(3);
    expect(applySpeedProfile(roomy, u, { previous, speed: 3 })).toBeGreaterThan(0);
    expect(roomy[0].endSpeed).toBe(0);
    // From rest it is the plain profile.
    const rest = [lineSegment(at, 4)];
    const plain = [lineSegment(at, 4)];
    expect(applySpeedProfile(rest, u, { previous, speed: 0 })).toBe(applySpeedProfile(plain, u));
  });

  test("segmentPiece: the same curve between two distances", () => {
    const arc = arcSegment({ x: 1, y: 2, heading: 0.3 }, -0.5, 4, -1);
    const piece = segmentPiece(arc, 1, 3);
    expect(piece.length).toBeCloseTo(2, 12);
    expect(piece.curvature).toBe(-0.5);
    expect(piece.direction).toBe(-1);
    const whole = segmentPiece(arc, 0, 3);
    expect(
      Math.hypot(
        piece.start.x - segmentPiece(arc, 0, 1).end.x,
        piece.start.y - segmentPiece(arc, 0, 1).end.y,
      ),
    )
      .toBeLessThan(1e-12);
    expect(Math.hypot(piece.end.x - whole.end.x, piece.end.y - whole.end.y)).toBeLessThan(1e-12);
    expect(segmentPiece(arc, -1, 9).length).toBe(4);
    expect(segmentPiece(arc, 3, 2).length).toBe(0);
  });
});

describe("hand-computed profiles", () => {
  test("a straight line: accelerate, cruise, decelerate", () => {
    // 20 tiles, cap 4, a = 2, b = 1: ramp up 4 tiles in 2 s, brake 8 tiles in 4 s, cruise 8 tiles in 2 s.
    const segs = [lineSegment({ x: 0, y: 0, heading: 0 }, 20)];
    const total = applySpeedProfile(segs, unit({}));
    expect(total).toBeCloseTo(8, 12);
    expect(segs[0].startSpeed).toBe(0);
    expect(segs[0].endSpeed).toBe(0);
    expect(segs[0].duration).toBeCloseTo(8, 12);
  });

  test("a short line never reaches the cap: a triangle", () => {
    // 3 tiles, a = 2, b = 1: peak^2 = 2*a*b*L/(a+b) = 4, peak 2; 1 s up, 2 s down.
    const segs = [lineSegment({ x: 0, y: 0, heading: 0 }, 3)];
    expect(applySpeedProfile(segs, unit({}))).toBeCloseTo(3, 12);
  });

  test("an arc limits the speed to sqrt(lateral acceleration * radius)", () => {
    // Line 30, arc radius 2 (cap sqrt(2*2) = 2), line 30: the joints are at most 2.
    const l1 = lineSegment({ x: 0, y: 0, heading: 0 }, 30);
    const arc = arcSegment(l1.end, 0.5, Math.PI);
    const l2 = lineSegment(arc.end, 30);
    const segs = [l1, arc, l2];
    const u = unit({});
    const total = applySpeedProfile(segs, u);
    expect(l1.endSpeed).toBeCloseTo(2, 12);
    expect(arc.startSpeed).toBeCloseTo(2, 12);
    expect(arc.endSpeed).toBeCloseTo(2, 12);
    // The arc (length 2 * pi/2) at constant speed 2: pi/2 seconds.
    expect(arc.duration).toBeCloseTo(Math.PI / 2, 12);
    // l1: up 0 -> 4 in 2 s (4 tiles), brake 4 -> 2 in 2 s (6 tiles), cruise 20 tiles in 5 s.
    expect(l1.duration).toBeCloseTo(9, 12);
    // l2: up 2 -> 4 in 1 s (3 tiles), brake 4 -> 0 in 4 s (8 tiles), cruise 19 in 4.75 s.
    expect(l2.duration).toBeCloseTo(9.75, 12);
    expect(total).toBeCloseTo(18.75 + Math.PI / 2, 12);
  });

  test("a cusp stops the unit; reverse is capped at half the top speed", () => {
    const fwd = lineSegment({ x: 0, y: 0, heading: 0 }, 10);
    const back = lineSegment(fwd.end, 10, -1);
    const segs = [fwd, back];
    applySpeedProfile(segs, unit({ deceleration: 2 }));
    expect(fwd.endSpeed).toBe(0);
    expect(back.startSpeed).toBe(0);
    // Reverse cap 2, a = b = 2: 1 s up (1 tile), 1 s down (1 tile), 8 tiles at 2: 4 s.
    expect(back.duration).toBeCloseTo(6, 12);
  });

  test("no speed limit: segments untouched and 0 returned", () => {
    const segs = [lineSegment({ x: 0, y: 0, heading: 0 }, 5)];
    expect(applySpeedProfile(segs, unit({ maxSpeed: 0 }))).toBe(0);
    expect(segs[0].duration).toBeUndefined();
  });

  test("turn in place stops a unit without fluid turning; a fluid-turning unit slows to the fillet speed", () => {
    const a = lineSegment({ x: 0, y: 0, heading: 0 }, 10);
    const b = lineSegment({ x: 10, y: 0, heading: Math.PI / 2 }, 10);
    const stiff = [a, b];
    applySpeedProfile(stiff, unit({ turningRadius: 0, fluidTurning: false }));
    expect(a.endSpeed).toBe(0);
    const a2 = lineSegment({ x: 0, y: 0, heading: 0 }, 10);
    const b2 = lineSegment({ x: 10, y: 0, heading: Math.PI / 2 }, 10);
    const u = unit({ turningRadius: 0, fluidTurning: true });
    applySpeedProfile([a2, b2], u);
    // Fillet radius for a right angle within half of 10: 5 / tan(pi/4) = 5; speed sqrt(2 * 5).
    expect(a2.endSpeed).toBeCloseTo(Math.sqrt(10), 12);
    expect(fluidTurningRadius(a2.endSpeed!, u)).toBeCloseTo(5, 12);
  });

  test("fluidTurningRadius is speed^2 / lateral acceleration", () => {
    expect(fluidTurningRadius(3, { lateralAcceleration: 3 })).toBe(3);
    expect(fluidTurningRadius(0, { lateralAcceleration: 3 })).toBe(0);
    expect(fluidTurningRadius(1, { lateralAcceleration: 0 })).toBe(Infinity);
  });

  test("trapezoidDuration agrees with a dense integration", () => {
    const r = rng(7);
    for (let i = 0; i < 50; i++) {
      const len = 0.5 + 20 * r();
      const a = 0.5 + 3 * r();
      const b = 0.5 + 3 * r();
      const cap = 0.5 + 5 * r();
      const v0 = Math.min(cap, Math.sqrt(2 * b * len) * r());
      const v1 = Math.min(cap, Math.sqrt(v0 * v0 + 2 * a * len) * r());
      const exact = trapezoidDuration(len, v0, v1, cap, a, b);
      expect(Math.abs(exact - integrateDuration(len, v0, v1, cap, a, b)) / exact).toBeLessThan(1e-5);
    }
  });
});

describe("invariants on random paths", () => {
  test("never above a limit, |dv^2/ds| within the ramps, durations match the integration", () => {
    const r = rng(42);
    for (let trial = 0; trial < 100; trial++) {
      const u = unit({
        maxSpeed: 1 + 6 * r(),
        acceleration: 0.5 + 3 * r(),
        deceleration: 0.5 + 3 * r(),
        lateralAcceleration: 0.5 + 4 * r(),
        turningRadius: 0.5 + r(),
      });
      const segs: Segment[] = [];
      let pose = { x: 0, y: 0, heading: 0 };
      let dir: 1 | -1 = 1;
      const n = 1 + Math.floor(8 * r());
      for (let i = 0; i < n; i++) {
        if (r() < 0.2) dir = dir === 1 ? -1 : 1;
        const len = r() < 0.1 ? 0 : 0.1 + 10 * r();
        const seg = r() < 0.5
          ? lineSegment(pose, len, dir)
          : arcSegment(pose, (r() < 0.5 ? 1 : -1) / (u.turningRadius + 3 * r()), len, dir);
        segs.push(seg);
        pose = seg.end;
      }
      const total = applySpeedProfile(segs, u);
      let sum = 0;
      expect(segs[0].startSpeed).toBe(0);
      expect(segs[n - 1].endSpeed).toBe(0);
      for (let i = 0; i < n; i++) {
        const s = segs[i];
        const v0 = s.startSpeed!, v1 = s.endSpeed!;
        let cap = s.direction < 0 ? u.maxSpeed / 2 : u.maxSpeed;
        if (s.curvature !== 0) cap = Math.min(cap, Math.sqrt(u.lateralAcceleration / Math.abs(s.curvature)));
        expect(v0).toBeLessThanOrEqual(cap + 1e-12);
        expect(v1).toBeLessThanOrEqual(cap + 1e-12);
        expect(v1 * v1 - v0 * v0).toBeLessThanOrEqual(2 * u.acceleration * s.length + 1e-9);
        expect(v0 * v0 - v1 * v1).toBeLessThanOrEqual(2 * u.deceleration * s.length + 1e-9);
        if (i > 0) {
          expect(s.startSpeed).toBe(segs[i - 1].endSpeed);
          if (segs[i - 1].direction !== s.direction) expect(v0).toBe(0);
        }
        if (s.length > 0) {
          const t = integrateDuration(s.length, v0, v1, cap, u.acceleration, u.deceleration);
          expect(Math.abs(s.duration! - t) / t).toBeLessThan(1e-5);
          expect(s.duration!).toBeGreaterThanOrEqual(s.length / cap - 1e-12);
        } else {
          expect(s.duration).toBe(0);
        }
        sum += s.duration!;
      }
      expect(total).toBeCloseTo(sum, 9);
    }
  });
});

describe("splitting at the speed phases", () => {
  test("a straight line: poseAtTime on the pieces follows the trapezoid exactly", () => {
    const segs = [lineSegment({ x: 0, y: 0, heading: 0 }, 20)];
    const u = unit({});
    applySpeedProfile(segs, u);
    const pieces = splitAtSpeedPhases(segs, u);
    expect(pieces.length).toBe(3);
    // Up 2 s (4 tiles), cruise 2 s (8 tiles), brake 4 s (8 tiles).
    expect(pieces.map((p) => p.duration)).toEqual([
      expect.closeTo(2, 12),
      expect.closeTo(2, 12),
      expect.closeTo(4, 12),
    ]);
    expect(poseAtTime(pieces, 1).x).toBeCloseTo(1, 12);
    expect(poseAtTime(pieces, 3).x).toBeCloseTo(8, 12);
    expect(poseAtTime(pieces, 6).x).toBeCloseTo(18, 12);
    // Unsplit, the segment's speed is taken as linear in time over 8 s: not the trapezoid.
    expect(Math.abs(poseAtTime(segs, 3).x - 8)).toBeGreaterThan(0.4);
  });

  test("random paths: constant acceleration per piece, same geometry and total time", () => {
    const r = rng(9);
    for (let trial = 0; trial < 100; trial++) {
      const u = unit({
        maxSpeed: 1 + 6 * r(),
        acceleration: 0.5 + 3 * r(),
        deceleration: 0.5 + 3 * r(),
        lateralAcceleration: 0.5 + 4 * r(),
      });
      const segs: Segment[] = [];
      let pose = { x: 0, y: 0, heading: 0 };
      for (let i = 0; i < 5; i++) {
        const dir = r() < 0.2 ? -1 : 1;
        const len = 0.1 + 8 * r();
        const seg = r() < 0.5
          ? lineSegment(pose, len, dir)
          : arcSegment(pose, (r() < 0.5 ? 1 : -1) / (1 + 3 * r()), len, dir);
        segs.push(seg);
        pose = seg.end;
      }
      const total = applySpeedProfile(segs, u);
      const pieces = splitAtSpeedPhases(segs, u);
      let sum = 0;
      for (const [i, p] of pieces.entries()) {
        sum += p.duration!;
        const acc = (p.endSpeed! ** 2 - p.startSpeed! ** 2) / (2 * p.length);
        const ok = [u.acceleration, -u.deceleration, 0].some((a) => Math.abs(acc - a) < 1e-6);
        expect(ok).toBe(true);
        if (i > 0) {
          expect(Math.hypot(p.start.x - pieces[i - 1].end.x, p.start.y - pieces[i - 1].end.y)).toBeLessThan(
            1e-9,
          );
          if (p.direction === pieces[i - 1].direction) {
            expect(p.startSpeed).toBeCloseTo(pieces[i - 1].endSpeed!, 9);
          }
        }
      }
      expect(sum).toBeCloseTo(total, 9);
      const end = pieces[pieces.length - 1].end;
      expect(Math.hypot(end.x - pose.x, end.y - pose.y)).toBeLessThan(1e-9);
    }
  });
});
