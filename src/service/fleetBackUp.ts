/**
 * Backing up a step (the article's answer to a head-on meeting in a narrow place): a unit that finds no timing
 * because another comes at it reverses along the ground it has just driven (known free of walls: it drove it)
 * to the nearest point clear of the other's trajectory, waits there while it passes, drives forward over the
 * same ground and goes on. Units that can reverse back up (reverse segments); disc-shaped units that turn in
 * place turn round and drive back (a disc sweeps the same ground either way); others cannot and wait as before.
 * The legs are only geometry: the scheduler times them like a refuge's (fleetScheduler.ts #scheduleVia), checked
 * against the reservation table like any other leg. Pure.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { arcSegment, lineSegment, poseAlong, poseAtDistance, segmentPiece } from "../geometry/segment.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../motion/speedProfile.ts";
import { progressAt, type Trajectory } from "../motion/trajectory.ts";
import type { UnitSpec } from "../units/unit.ts";

/** Most ground (tiles) remembered behind a unit, and so the farthest it backs up. */
export const BACK_REACH = 8;
/** Backing distances tried per meeting (nearest clear point first, then one tile farther). */
const BACK_CANDIDATES = 2;
/** Clearance (tiles) beyond both radii from the other's trajectory at the point backed up to. */
const BACK_MARGIN = 0.1;

/** Whether and how `unit` can go back over its ground: "reverse", "turn" (in place, discs only) or null. */
export function backingMode(unit: UnitSpec): "reverse" | "turn" | null {
  if (unit.canReverse) return "reverse";
  const disc = unit.footprint.width === 0 && unit.footprint.length === 0;
  return disc && unit.turningRadius === 0 ? "turn" : null;
}

/** A copy of a segment's geometry (no speeds). */
function bare(seg: Segment): Segment {
  return seg.curvature === 0
    ? lineSegment(seg.start, seg.length, seg.direction)
    : arcSegment(seg.start, seg.curvature, seg.length, seg.direction);
}

/** The geometry of `traj` driven by `time` (waits dropped). */
export function drivenPath(traj: Trajectory, time: number): Segment[] {
  const { index, into } = progressAt(traj, time);
  const out: Segment[] = [];
  for (let i = 0; i < Math.min(index + 1, traj.segments.length); i++) {
    const seg = traj.segments[i];
    if (seg.length === 0) continue;
    if (i < index) out.push(bare(seg));
    else if (into > 0) {
      const part = segmentPiece(seg, 0, distanceInto(seg, into));
      if (part.length > 1e-9) out.push(part);
    }
  }
  return out;
}

function distanceInto(seg: Segment, tau: number): number {
  const D = seg.duration ?? 0;
  if (D <= 0 || tau >= D) return seg.length;
  const v0 = seg.startSpeed ?? 0, v1 = seg.endSpeed ?? 0;
  return Math.min(seg.length, Math.max(0, v0 * tau + ((v1 - v0) * tau * tau) / (2 * D)));
}

/**
 * The ground behind a unit after it drove `driven` from where `before` ended (kept when they join), the last
 * BACK_REACH tiles of it.
 */
export function extendTravelled(before: Segment[] | undefined, driven: Segment[]): Segment[] {
  let all = driven;
  if (before && before.length > 0 && driven.length > 0) {
    const e = before[before.length - 1].end, s = driven[0].start;
    if (Math.hypot(e.x - s.x, e.y - s.y) < 1e-6) all = [...before, ...driven];
  } else if (before && driven.length === 0) all = before;
  let keep = 0, i = all.length;
  while (i > 0 && keep < BACK_REACH) keep += all[--i].length;
  const out = all.slice(i);
  if (keep > BACK_REACH && out.length > 0) out[0] = segmentPiece(out[0], keep - BACK_REACH, out[0].length);
  return out;
}

/** `seg` driven the other way from its end: in reverse, or (turned round in place) forward. */
function backwards(seg: Segment, mode: "reverse" | "turn"): Segment {
  if (mode === "reverse") {
    const dir = -seg.direction as 1 | -1;
    return seg.curvature === 0
      ? lineSegment(seg.end, seg.length, dir)
      : arcSegment(seg.end, seg.curvature, seg.length, dir);
  }
  const h = seg.end.heading + Math.PI;
  const start: Pose = { x: seg.end.x, y: seg.end.y, heading: Math.atan2(Math.sin(h), Math.cos(h)) };
  return seg.curvature === 0
    ? lineSegment(start, seg.length, 1)
    : arcSegment(start, -seg.curvature, seg.length, 1);
}

function profiled(segs: Segment[], unit: UnitSpec): Segment[] {
  applySpeedProfile(segs, unit);
  return splitAtSpeedPhases(segs, unit);
}

/** Another unit as backing up must keep clear of it: its trajectory, the path it still has, its radius. */
export interface OtherUnit {
  /** Its committed trajectory. */
  traj: Trajectory;
  /** What it still has to drive (a halted unit's path). */
  path: Segment[];
  /** Its bounding radius. */
  radius: number;
}

/**
 * Points (quarter-tile samples) of the others' start poses, trajectories and remaining paths inside the box
 * (grown by each one's clearance), with the clearance each needs.
 */
function groundNear(
  others: OtherUnit[],
  box: { x0: number; y0: number; x1: number; y1: number },
  radius: number,
): { x: number; y: number; r: number }[] {
  const pts: { x: number; y: number; r: number }[] = [];
  for (const o of others) {
    const r = radius + o.radius + BACK_MARGIN;
    const inBox = (p: { x: number; y: number }) =>
      p.x >= box.x0 - r && p.x <= box.x1 + r && p.y >= box.y0 - r && p.y <= box.y1 + r;
    if (inBox(o.traj.startPose)) pts.push({ x: o.traj.startPose.x, y: o.traj.startPose.y, r });
    for (const segs of [o.traj.segments, o.path]) {
      for (const seg of segs) {
        // A segment stays within its length of its start: skip those that cannot reach the box.
        const dx = Math.max(box.x0 - seg.start.x, seg.start.x - box.x1, 0);
        const dy = Math.max(box.y0 - seg.start.y, seg.start.y - box.y1, 0);
        if (Math.hypot(dx, dy) > seg.length + r) continue;
        for (let u = 0; u < seg.length + 0.25; u += 0.25) {
          const p = poseAlong(seg, Math.min(u, seg.length));
          if (inBox(p)) pts.push({ x: p.x, y: p.y, r });
        }
      }
    }
  }
  return pts;
}

/** One way to back up: the whole path (back, then forward over the same ground, then `rest`) and its split. */
export interface BackingPath {
  /** First leg (backing) then second leg (forward again and on). */
  path: Segment[];
  /** Segments in the first leg. */
  legOne: number;
}

/**
 * Ways for `unit` (standing at the end of `travelled`, with `rest` still to drive) to back up out of the way:
 * to the nearest points along its travelled ground clear of every other unit's trajectory and remaining path (as
 * a refuge must be, fleetRefuge.ts: backing into ground a halted unit still has to drive only moves the
 * blockage), nearest first; none when it cannot go back or no point is clear.
 */
export function backingPaths(
  unit: UnitSpec,
  travelled: Segment[],
  rest: Segment[],
  others: OtherUnit[],
): BackingPath[] {
  const mode = backingMode(unit);
  if (mode === null || travelled.length === 0) return [];
  const back = [...travelled].reverse().map((s) => backwards(s, mode));
  const total = back.reduce((d, s) => d + s.length, 0);
  const at = (d: number) => poseAtDistance(back, Math.min(d, total));
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (let d = 0; d <= total + 0.5; d += 0.5) {
    const p = at(d);
    box.x0 = Math.min(box.x0, p.x - 0.5), box.y0 = Math.min(box.y0, p.y - 0.5);
    box.x1 = Math.max(box.x1, p.x + 0.5), box.y1 = Math.max(box.y1, p.y + 0.5);
  }
  const ground = groundNear(others, box, unit.boundingRadius);
  const isClear = (p: { x: number; y: number }) =>
    ground.every((g) => Math.hypot(g.x - p.x, g.y - p.y) > g.r);
  const out: BackingPath[] = [];
  let first = -1;
  // Every half tile, and the far end of the ground (where it came from: a pocket it left is often there).
  const steps: number[] = [];
  for (let d = 0.5; d < total - 1e-9; d += 0.5) steps.push(d);
  steps.push(total);
  for (const d of steps) {
    if (out.length >= BACK_CANDIDATES) break;
    if (first >= 0 && d < first + 1 - 1e-9 && d < total) continue;
    if (!isClear(at(d))) continue;
    if (first < 0) first = d;
    out.push(build(back, travelled, rest, d, total, unit));
  }
  return out;
}

/** Backs `d` along `back`, then drives the last `d` of `travelled` forward again and `rest` after it. */
function build(
  back: Segment[],
  travelled: Segment[],
  rest: Segment[],
  d: number,
  total: number,
  unit: UnitSpec,
): BackingPath {
  const legOne: Segment[] = [];
  let s = d;
  for (const seg of back) {
    if (s <= 1e-9) break;
    legOne.push(s >= seg.length ? bare(seg) : segmentPiece(seg, 0, s));
    s -= seg.length;
  }
  const forward: Segment[] = [];
  let skip = total - d;
  for (const seg of travelled) {
    if (skip >= seg.length - 1e-9) {
      skip -= seg.length;
      continue;
    }
    forward.push(skip > 1e-9 ? segmentPiece(seg, skip, seg.length) : bare(seg));
    skip = 0;
  }
  const one = profiled(legOne, unit);
  const two = profiled([...forward, ...rest.map(bare)], unit);
  return { path: [...one, ...two], legOne: one.length };
}

/**
 * A step aside and back (a standoff's yield, fleetDeadlock.ts): `out` (to a refuge) as the first leg, then back
 * over the same ground (turned round in place, or in reverse) to where `out` left `rest`, and `rest` on from there
 * (the stretch both begin with is not driven twice); the refuge's legs as the scheduler times them
 * (fleetScheduler.ts). Null when `unit` cannot go back over its ground (see backingMode), `out` never leaves
 * `rest`, or the pieces do not join (`out` not starting where `rest` does).
 */
export function asideAndBack(unit: UnitSpec, out: Segment[], rest: Segment[]): BackingPath | null {
  const mode = backingMode(unit);
  const ground = out.filter((s) => s.length > 0).map(bare);
  if (mode === null || ground.length === 0) return null;
  const path = rest.filter((s) => s.length > 0).map(bare);
  const shared = sharedStart(ground, path);
  const total = ground.reduce((d, s) => d + s.length, 0);
  if (shared >= total - 1e-6) return null;
  const back = [...piecesFrom(ground, shared)].reverse().map((s) => backwards(s, mode));
  const one = profiled(ground, unit);
  const two = profiled([...back, ...piecesFrom(path, shared)], unit);
  const all = [...one, ...two];
  // Every segment starts where the one before ends (the contract: a client drives them one after another).
  for (let i = 1; i < all.length; i++) {
    const e = all[i - 1].end, st = all[i].start;
    if (Math.hypot(e.x - st.x, e.y - st.y) > 1e-6) return null;
  }
  return { path: all, legOne: one.length };
}

/**
 * Step (tiles) at which two paths are compared, and how close (tiles) they must be to count as the same: the
 * way back ends where `rest` is cut, so they must meet exactly (a gap would be a jump between segments).
 */
const SHARED_STEP = 0.25, SHARED_TOLERANCE = 1e-6;

/** How far (tiles, in SHARED_STEP steps) two paths from the same pose run together. */
function sharedStart(a: Segment[], b: Segment[]): number {
  const ta = a.reduce((d, s) => d + s.length, 0), tb = b.reduce((d, s) => d + s.length, 0);
  if (b.length === 0) return 0;
  let shared = 0;
  for (let d = SHARED_STEP; d <= Math.min(ta, tb) + 1e-9; d += SHARED_STEP) {
    const p = poseAtDistance(a, d), q = poseAtDistance(b, d);
    if (Math.hypot(p.x - q.x, p.y - q.y) > SHARED_TOLERANCE) break;
    shared = d;
  }
  return shared;
}

/** The segments from `d` tiles along `segs` on (the first cut there). */
function piecesFrom(segs: Segment[], d: number): Segment[] {
  const out: Segment[] = [];
  let skip = d;
  for (const seg of segs) {
    if (skip >= seg.length - 1e-9) {
      skip -= seg.length;
      continue;
    }
    out.push(skip > 1e-9 ? segmentPiece(seg, skip, seg.length) : seg);
    skip = 0;
  }
  return out;
}
