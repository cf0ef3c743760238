/**
 * The path corridor in process: splice targets (at a joint, mid-arc, near the end), the kept stretch cut per
 * segment (across a segment boundary, mid-arc, over a reverse segment, a blocked lead), speeds continuous at the
 * join (or the whole path from rest after a cusp), progress placed on the path, and patches against the
 * untravelled part.
 */
import { describe, expect, test } from "vitest";
import {
  continues,
  cutSplice,
  joinSplice,
  MIN_SPLICE_LEAD,
  OFF_PATH,
  remainingTouches,
  samplePath,
  spliceLead,
  spliceTarget,
  startsAt,
  timedPiece,
  trackProgress,
} from "../../src/motion/pathCorridor.ts";
import { applySpeedProfile, speedAt, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { arcSegment, lineSegment, poseAlong } from "../../src/geometry/segment.ts";
import type { Pose, Segment } from "../../src/geometry/types.ts";
import { AGENT, BUILTIN_PROFILES } from "../../src/units/profiles.ts";

const tank = BUILTIN_PROFILES.tank;
const near = (a: Pose, b: Pose) => Math.hypot(a.x - b.x, a.y - b.y) + Math.abs(a.heading - b.heading);
const endOf = (s: Segment) => poseAlong(s, s.length);
const lengthOf = (segs: readonly Segment[]) => segs.reduce((a, s) => a + s.length, 0);

/** A line of 5, a left arc of length 3 (radius 2), a line of 5: joints at 5 and 8, length 13. */
function lineArcLine(): Segment[] {
  const a = lineSegment({ x: 0.5, y: 0.5, heading: 0 }, 5);
  const b = arcSegment(endOf(a), 0.5, 3);
  const c = lineSegment(endOf(b), 5);
  return [a, b, c];
}

describe("splice lead and target", () => {
  test("the lead covers the stopping distance from top speed, and at least MIN_SPLICE_LEAD", () => {
    expect(spliceLead(AGENT)).toBe(MIN_SPLICE_LEAD);
    // Tank: 4 tiles/s, braking at 3 tiles/s^2: 16 / 6 tiles to stop (more than 0.25 s at top speed).
    expect(spliceLead(tank)).toBeCloseTo(16 / 6, 12);
  });

  test("a target mid-path, moved to the next joint for line paths, none past the end", () => {
    const segs = lineArcLine();
    expect(spliceTarget(segs, 1, 2, false)).toEqual({ from: 1, to: 3 });
    expect(spliceTarget(segs, 1, 2, true)).toEqual({ from: 1, to: 5 });
    // Mid-arc without the joint rule; the arc's end with it.
    expect(spliceTarget(segs, 5.5, 1, false)).toEqual({ from: 5.5, to: 6.5 });
    expect(spliceTarget(segs, 5.5, 1, true)).toEqual({ from: 5.5, to: 8 });
    // The next joint after 11 is the path's end: no splice point before it.
    expect(spliceTarget(segs, 9, 2, false)).toEqual({ from: 9, to: 11 });
    expect(spliceTarget(segs, 9, 2, true)).toBeNull();
    expect(spliceTarget(segs, 11.5, 2, false)).toBeNull();
    // A distance past the end is clamped to it.
    expect(spliceTarget(segs, 100, 1, false)).toBeNull();
  });

  test("joints where only the speed phase changes are not corners: the joint rule passes them", () => {
    const segs = lineArcLine();
    applySpeedProfile(segs, tank);
    const split = splitAtSpeedPhases(segs, tank);
    expect(split.length).toBeGreaterThan(segs.length);
    // The first line accelerates then cruises: a phase joint inside it, yet the target is still the corner at 5.
    expect(continues(split[0], split[1])).toBe(true);
    expect(continues(segs[0], segs[1])).toBe(false);
    expect(spliceTarget(split, 0.5, 0.1, true)!.to).toBeCloseTo(5, 9);
    expect(spliceTarget(split, 5.5, 1, true)!.to).toBeCloseTo(8, 9);
  });
});

describe("timed pieces", () => {
  test("the first u of a constant-acceleration segment keeps its acceleration and the timing identity", () => {
    const seg = lineSegment({ x: 0, y: 0, heading: 0 }, 4);
    seg.startSpeed = 1;
    seg.endSpeed = 3; // a = (9 - 1) / 8 = 1
    seg.duration = 2;
    const piece = timedPiece(seg, 1.5);
    expect(piece.endSpeed).toBeCloseTo(2, 12); // sqrt(1 + 2 * 1 * 1.5)
    expect(piece.duration).toBeCloseTo(1, 12); // (2 - 1) / a
    expect(0.5 * (piece.startSpeed! + piece.endSpeed!) * piece.duration!).toBeCloseTo(1.5, 12);
    // Without a profile: the geometry alone.
    expect(timedPiece(lineSegment({ x: 0, y: 0, heading: 0 }, 4), 1).duration).toBeUndefined();
  });
});

describe("cutting the kept stretch", () => {
  test("up to a segment boundary: one piece, the splice pose is the next segment's start", () => {
    const segs = lineArcLine();
    const s = cutSplice(segs, 1, 5, AGENT, () => false)!;
    expect(s.fromIndex).toBe(0);
    expect(s.fromOffset).toBe(1);
    expect(s.kept.length).toBe(1);
    expect(s.kept[0].length).toBeCloseTo(4, 12);
    expect(near(s.pose, segs[1].start)).toBeLessThan(1e-12);
  });

  test("from a segment boundary: the replacement starts at the next segment, offset 0", () => {
    const segs = lineArcLine();
    const s = cutSplice(segs, 5, 6, AGENT, () => false)!;
    expect(s.fromIndex).toBe(1);
    expect(s.fromOffset).toBe(0);
    expect(s.kept.length).toBe(1);
    expect(s.kept[0].curvature).toBe(0.5);
    expect(near(s.pose, poseAlong(segs[1], 1))).toBeLessThan(1e-12);
  });

  test("across a joint to mid-arc: pieces join up and end at the splice pose", () => {
    const segs = lineArcLine();
    const s = cutSplice(segs, 4, 6.5, AGENT, () => false)!;
    expect(s.kept.length).toBe(2);
    expect(s.kept[0].curvature).toBe(0);
    expect(s.kept[1].curvature).toBe(0.5);
    expect(lengthOf(s.kept)).toBeCloseTo(2.5, 12);
    expect(near(endOf(s.kept[0]), s.kept[1].start)).toBeLessThan(1e-12);
    expect(near(endOf(s.kept[1]), s.pose)).toBeLessThan(1e-12);
    expect(near(s.pose, poseAlong(segs[1], 1.5))).toBeLessThan(1e-12);
  });

  test("over a reverse segment: the piece keeps its direction, the pose is behind the cusp", () => {
    const fwd = lineSegment({ x: 0, y: 0, heading: 0 }, 3);
    const rev = lineSegment(endOf(fwd), 3, -1);
    const s = cutSplice([fwd, rev], 2, 4, AGENT, () => false)!;
    expect(s.kept.map((p) => p.direction)).toEqual([1, -1]);
    expect(s.pose.x).toBeCloseTo(2, 12);
    expect(s.pose.heading).toBe(0);
    expect(startsAt([lineSegment(s.pose, 1)], s.pose)).toBe(true);
    expect(startsAt([lineSegment({ ...s.pose, x: s.pose.x + 1e-6 }, 1)], s.pose)).toBe(false);
    expect(startsAt([], s.pose)).toBe(false);
  });

  test("a blocked lead gives no splice; the test sees exactly the kept stretch", () => {
    const segs = lineArcLine();
    const seen: Segment[] = [];
    expect(cutSplice(segs, 4, 6.5, AGENT, (p) => (seen.push(p), false))).not.toBeNull();
    expect(lengthOf(seen)).toBeCloseTo(2.5, 12);
    // A wall across the arc: the first piece is fine, the second is not.
    const onArc = (p: Segment) => p.curvature !== 0;
    expect(cutSplice(segs, 4, 6.5, AGENT, onArc)).toBeNull();
    // Before the wall the splice stands.
    expect(cutSplice(segs, 1, 5, AGENT, onArc)).not.toBeNull();
  });
});

/** Every segment with a duration satisfies length = (startSpeed + endSpeed) / 2 * duration. */
function expectTimed(segs: readonly Segment[]) {
  for (const s of segs) {
    if (!(s.duration! > 0)) continue;
    const mean = 0.5 * (s.startSpeed! + s.endSpeed!) * s.duration!;
    expect(Math.abs(mean - s.length)).toBeLessThanOrEqual(1e-9 * Math.max(1, s.length));
  }
}

describe("joining the new part", () => {
  /** A straight 12-tile path profiled for the tank, and a splice 4 tiles along it. */
  function moving() {
    const old = [lineSegment({ x: 0.5, y: 0.5, heading: 0 }, 12)];
    applySpeedProfile(old, tank);
    const target = spliceTarget(old, 4, spliceLead(tank), false)!;
    const splice = cutSplice(old, target.from, target.to, tank, () => false)!;
    return { old, target, splice };
  }

  test("speeds continue the unit's at its position and are continuous at every joint", () => {
    const { old, target, splice } = moving();
    expect(splice.speed).toBeCloseTo(speedAt(old[0], 4, tank), 12);
    expect(splice.speed).toBeGreaterThan(0);
    const added = [
      arcSegment(splice.pose, 0.25, 2),
      lineSegment(poseAlong(arcSegment(splice.pose, 0.25, 2), 2), 3),
    ];
    const joined = joinSplice(old, splice, added, tank);
    expect(joined.path).not.toBeNull();
    expect(joined.replacement[0].startSpeed).toBeCloseTo(splice.speed, 9);
    for (let i = 1; i < joined.replacement.length; i++) {
      expect(joined.replacement[i].startSpeed).toBeCloseTo(joined.replacement[i - 1].endSpeed!, 12);
    }
    expect(joined.replacement.at(-1)!.endSpeed).toBe(0);
    expect(joined.length).toBeCloseTo(target.to - target.from + 5, 12);
    expect(joined.duration).toBeCloseTo(joined.replacement.reduce((a, s) => a + s.duration!, 0), 12);
    // Split at the speed phases: the timing identity holds on every piece, and the profile's phases show.
    expect(joined.replacement.length).toBeGreaterThan(3);
    expectTimed(joined.replacement);
    expectTimed(joined.path!);
    // The whole path: the old one cut at the unit, then the replacement; it joins up everywhere.
    const path = joined.path!;
    expect(path[0].length).toBeCloseTo(4, 12);
    expect(lengthOf(path)).toBeCloseTo(4 + joined.length, 12);
    for (let i = 1; i < path.length; i++) expect(near(endOf(path[i - 1]), path[i].start)).toBeLessThan(1e-9);
  });

  test("a cusp past the lead: spliced, the unit brakes to a stop on the kept stretch", () => {
    const { old, splice } = moving();
    const joined = joinSplice(old, splice, [lineSegment(splice.pose, 3, -1)], tank);
    expect(joined.path).not.toBeNull();
    expect(joined.replacement[0].startSpeed).toBeCloseTo(splice.speed, 9);
    // The kept stretch, split at its speed phases, ends at rest before the cusp.
    const cusp = joined.replacement.findIndex((s) => s.direction < 0);
    expect(cusp).toBeGreaterThan(0);
    expect(joined.replacement[cusp - 1].endSpeed).toBe(0);
    expectTimed(joined.replacement);
  });

  test("a cusp closer than the unit can stop: the replacement is the whole path, from rest", () => {
    const { old } = moving();
    // A lead of half a tile: from 3.46 tiles/s the tank needs 2 tiles to stop.
    const splice = cutSplice(old, 4, 4.5, tank, () => false)!;
    const joined = joinSplice(old, splice, [lineSegment(splice.pose, 3, -1)], tank);
    expect(joined.path).toBeNull();
    expect(joined.replacement[0].startSpeed).toBe(0);
    const cusp = joined.replacement.findIndex((s) => s.direction < 0);
    expect(joined.replacement[cusp - 1].endSpeed).toBe(0);
    expect(joined.duration).toBeGreaterThan(0);
    expectTimed(joined.replacement);
  });

  test("from the path's start (offset 0, no segment before): profiled from rest, nothing of the old path kept", () => {
    const old = lineArcLine();
    applySpeedProfile(old, tank);
    const splice = cutSplice(old, 0, 3, tank, () => false)!;
    expect(splice.speed).toBe(0);
    const joined = joinSplice(old, splice, [lineSegment(splice.pose, 2)], tank);
    expect(joined.path!.length).toBe(joined.replacement.length);
    expect(joined.replacement[0].startSpeed).toBe(0);
  });

  test("from a joint: the segment before it is kept whole and the profile continues it", () => {
    const old = lineArcLine();
    applySpeedProfile(old, tank);
    const splice = cutSplice(old, 5, 6, tank, () => false)!;
    const joined = joinSplice(old, splice, [arcSegment(splice.pose, 0.5, 1)], tank);
    expect(joined.path![0]).toBe(old[0]);
    expect(joined.replacement[0].startSpeed).toBeCloseTo(speedAt(old[1], 0, tank), 9);
  });
});

describe("progress and patches", () => {
  const segs = lineArcLine();
  const samples = samplePath(segs);
  const start = { pose: segs[0].start, distance: 0, offPath: false };

  test("a distance puts the unit on the path; a pose alone is placed at the nearest sample", () => {
    const byDistance = trackProgress(segs, samples, start, { pose: null, distance: 6 });
    expect(byDistance.distance).toBe(6);
    expect(near(byDistance.pose, poseAlong(segs[1], 1))).toBeLessThan(1e-12);
    expect(byDistance.offPath).toBe(false);
    const byPose = trackProgress(segs, samples, start, { pose: { x: 3.5, y: 0.7, heading: 0 }, distance: 0 });
    expect(byPose.distance).toBeCloseTo(3, 12);
    expect(byPose.offPath).toBe(false);
  });

  test("a pose away from where its distance puts it, or from the path, is off the path", () => {
    const far = { x: 3.5, y: 0.5 + OFF_PATH + 0.5, heading: 0 };
    expect(trackProgress(segs, samples, start, { pose: far, distance: 3 }).offPath).toBe(true);
    expect(trackProgress(segs, samples, start, { pose: far, distance: 0 }).offPath).toBe(true);
    // A distance that matches the pose: on the path again.
    const on = { x: 3.5, y: 0.5, heading: 0 };
    expect(trackProgress(segs, samples, { ...start, offPath: true }, { pose: on, distance: 3 }).offPath).toBe(
      false,
    );
    // Nothing usable: the position is unchanged.
    expect(trackProgress([], new Float64Array(0), start, { pose: null, distance: 0 })).toEqual(start);
  });

  test("a patch matters only where the unit has not been yet, within the margin", () => {
    const rect = { x0: 2, y0: 2, x1: 3, y1: 3 }; // a tile beside the first line (y 0.5), 1.5 away
    expect(remainingTouches(samples, 0, 2, [rect])).toBe(true);
    expect(remainingTouches(samples, 0, 1, [rect])).toBe(false);
    // Still on the first line, within reach of it; past the line (the arc curves away from it): no replan.
    expect(remainingTouches(samples, 4, 2, [rect])).toBe(true);
    expect(remainingTouches(samples, 5, 2, [rect])).toBe(false);
  });
});
