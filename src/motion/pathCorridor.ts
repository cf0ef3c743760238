/**
 * A unit's path corridor (in the spirit of Detour's dtPathCorridor): where a unit is along its path, what of the
 * path it has not travelled yet, and how a new plan is spliced onto the path a short lead ahead of it so the
 * unit keeps driving. Pure: the caller supplies the map test for the kept stretch.
 *
 * The path is sampled once per path ({@link samplePath}); progress reports are placed on it
 * ({@link trackProgress}); patched rectangles are tested against its remaining part ({@link remainingTouches}). A
 * replan starts at a splice point {@link spliceLead} ahead of the unit ({@link spliceTarget}, {@link cutSplice});
 * the new part is joined after the kept stretch with speeds that continue the unit's ({@link joinSplice}).
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import type { TileRect } from "../maps/layer.ts";
import { poseAlong, poseAtDistance, segmentPiece } from "../geometry/segment.ts";
import { normalizeAngle } from "../geometry/angle.ts";
import { applySpeedProfile, speedAt, type SpeedLimits, splitAtSpeedPhases } from "./speedProfile.ts";

/** Samples per tile when recording which tiles the remaining path covers. */
export const SAMPLES_PER_TILE = 4;
/** Seconds of driving at the unit's top speed between its reported position and a replan's splice point. */
export const SPLICE_LEAD_SECONDS = 0.25;
/** The shortest splice lead, tiles. */
export const MIN_SPLICE_LEAD = 1;
/** A reported pose farther than this (tiles) from the current path means the unit is not following it. */
export const OFF_PATH = 1;

/**
 * How far ahead of the unit's reported position a replan's splice point lies: at least the distance the unit
 * covers at top speed in {@link SPLICE_LEAD_SECONDS} (the update reaches it while it keeps driving) and the
 * distance it needs to stop from top speed (so it can slow down for whatever the new part starts with), and at
 * least {@link MIN_SPLICE_LEAD}.
 */
export function spliceLead(unit: Pick<SpeedLimits, "maxSpeed" | "deceleration">): number {
  const stopping = unit.deceleration > 0 ? (unit.maxSpeed * unit.maxSpeed) / (2 * unit.deceleration) : 0;
  return Math.max(MIN_SPLICE_LEAD, unit.maxSpeed * SPLICE_LEAD_SECONDS, stopping);
}

/** Samples a path every 1/SAMPLES_PER_TILE tile: (x, y, distance from the start) triples. */
export function samplePath(segs: readonly Segment[]): Float64Array {
  let n = 0;
  for (const seg of segs) n += Math.max(1, Math.ceil(seg.length * SAMPLES_PER_TILE)) + 1;
  const out = new Float64Array(n * 3);
  let k = 0, travelled = 0;
  for (const seg of segs) {
    const m = Math.max(1, Math.ceil(seg.length * SAMPLES_PER_TILE));
    for (let i = 0; i <= m; i++) {
      const u = (seg.length * i) / m;
      const p = poseAlong(seg, u);
      out[k++] = p.x;
      out[k++] = p.y;
      out[k++] = travelled + u;
    }
    travelled += seg.length;
  }
  return out;
}

/** The distance along the path of the sample nearest to a pose, and how far the pose is from it. */
export function nearestAlong(samples: Float64Array, pose: Pose): { distance: number; gap: number } {
  let best = 0, bestD = Infinity;
  for (let i = 0; i < samples.length; i += 3) {
    const d = Math.hypot(samples[i] - pose.x, samples[i + 1] - pose.y);
    if (d < bestD) {
      bestD = d;
      best = samples[i + 2];
    }
  }
  return { distance: best, gap: bestD };
}

/**
 * True if a rectangle comes within `margin` of the path's samples at or past `distance` (the part the unit has
 * not travelled yet).
 */
export function remainingTouches(
  samples: Float64Array,
  distance: number,
  margin: number,
  rects: readonly TileRect[],
): boolean {
  for (let i = 0; i < samples.length; i += 3) {
    if (samples[i + 2] < distance) continue;
    const x = samples[i], y = samples[i + 1];
    for (const r of rects) {
      if (x > r.x0 - margin && x < r.x1 + margin && y > r.y0 - margin && y < r.y1 + margin) return true;
    }
  }
  return false;
}

/** Where a unit is on its path. */
export interface PathPosition {
  /** Its last reported pose (or the one its distance puts it at). */
  pose: Pose;
  /** Its distance along the path. */
  distance: number;
  /** The pose was more than {@link OFF_PATH} from the path. */
  offPath: boolean;
}

/**
 * Places a progress report on the path: a distance (> 0) is taken as given, a pose alone is placed at the nearest
 * sample. With both, the unit is off its path when the pose is not where the distance puts it.
 */
export function trackProgress(
  segs: readonly Segment[],
  samples: Float64Array,
  at: PathPosition,
  report: { pose: Pose | null; distance: number },
): PathPosition {
  let { pose, distance, offPath } = at;
  if (report.pose) pose = report.pose;
  if (report.distance > 0) {
    distance = report.distance;
    if (!report.pose && segs.length > 0) pose = poseAtDistance(segs, report.distance);
    const there = report.pose && segs.length > 0 ? poseAtDistance(segs, report.distance) : null;
    offPath = there !== null && !(Math.hypot(there.x - pose.x, there.y - pose.y) <= OFF_PATH);
  } else if (report.pose && segs.length > 0) {
    const nearest = nearestAlong(samples, pose);
    distance = nearest.distance;
    offPath = !(nearest.gap <= OFF_PATH);
  }
  return { pose, distance, offPath };
}

/**
 * True when segment b continues segment a with the same geometry (same direction and curvature, no heading
 * jump): the joint is only a speed-phase change (speedProfile.ts splitAtSpeedPhases), not a corner or waypoint.
 */
export function continues(a: Segment, b: Segment): boolean {
  return a.direction === b.direction && a.curvature === b.curvature &&
    Math.abs(normalizeAngle(b.start.heading - a.end.heading)) <= 1e-9 &&
    Math.hypot(b.start.x - a.end.x, b.start.y - a.end.y) <= 1e-9;
}

/**
 * The stretch a splice keeps, as distances along the path: from the unit's distance (clamped to the path) to
 * `lead` past it, or with `atJoint` to the first joint between segments at or past that where the geometry
 * changes (a corner or waypoint: joints where only the speed phase changes, see {@link continues}, are
 * passed). Null when the splice point would not come before the path's end.
 */
export function spliceTarget(
  segs: readonly Segment[],
  distance: number,
  lead: number,
  atJoint: boolean,
): { from: number; to: number } | null {
  let total = 0;
  for (const seg of segs) total += seg.length;
  const from = Math.min(distance, total);
  let to = from + lead;
  if (!(to < total - 1e-6)) return null;
  if (atJoint) {
    let end = 0;
    for (let i = 0; i < segs.length; i++) {
      end += segs[i].length;
      if (end >= to && !(i + 1 < segs.length && continues(segs[i], segs[i + 1]))) break;
    }
    if (!(end < total - 1e-6)) return null;
    to = end;
  }
  return { from, to };
}

/** Where a replan starts on the current path, and what of that path the update keeps. */
export interface CorridorSplice {
  /** Segment index and distance along it of the unit's reported position (where the replacement starts). */
  fromIndex: number;
  fromOffset: number;
  /** The unit's speed there on the current path's profile (0 at the path's start). */
  speed: number;
  /** The current path from the unit's position to the splice point, cut per segment (checked legal). */
  kept: Segment[];
  /** The splice point's pose: the replan starts here. */
  pose: Pose;
}

/**
 * Cuts the kept stretch [from, to] of the path into one piece per segment it crosses; null when `hitsBlocked`
 * says a piece is not legal on the map. The unit's speed at `from` comes from the path's speed profile.
 */
export function cutSplice(
  segs: readonly Segment[],
  from: number,
  to: number,
  unit: SpeedLimits,
  hitsBlocked: (piece: Segment) => boolean,
): CorridorSplice | null {
  const kept: Segment[] = [];
  let fromIndex = -1, fromOffset = 0, index = 0, start = 0;
  for (; index < segs.length; index++) {
    const seg = segs[index];
    const end = start + seg.length;
    if (fromIndex < 0 && end > from) {
      fromIndex = index;
      fromOffset = from - start;
    }
    if (fromIndex >= 0) {
      const piece = segmentPiece(seg, Math.max(0, from - start), Math.min(seg.length, to - start));
      if (hitsBlocked(piece)) return null;
      kept.push(piece);
    }
    if (end >= to) break;
    start = end;
  }
  const seg = segs[index];
  const offset = to - start;
  return {
    fromIndex,
    fromOffset,
    speed: from > 0 ? speedAt(segs[fromIndex], fromOffset, unit) : 0,
    kept,
    pose: poseAlong(seg, offset),
  };
}

/** True when a path starts exactly at the pose's position (a splice needs a path that continues there). */
export function startsAt(segs: readonly Segment[], pose: Pose): boolean {
  const first = segs[0];
  return first !== undefined && Math.hypot(first.start.x - pose.x, first.start.y - pose.y) <= 1e-9;
}

/** A new part joined onto a path at a splice. */
export interface SplicedPath {
  /** What replaces the path from the unit's position: the kept stretch, then the new part (speeds set). */
  replacement: Segment[];
  /** Its length. */
  length: number;
  /** Its duration. */
  duration: number;
  /**
   * The whole path now: the old one up to the unit's position, then the replacement. Null when the unit cannot
   * keep to the old speeds (e.g. a cusp at the join): the replacement is then the whole path, profiled from rest.
   */
  path: Segment[] | null;
}

/**
 * The first `u` of a segment with its speeds: a profiled segment of the answers has constant acceleration, so
 * the speed at u is sqrt(v0^2 + (v1^2 - v0^2) u / L) and the piece takes 2 u / (v0 + v(u)).
 */
export function timedPiece(seg: Segment, u: number): Segment {
  const piece = segmentPiece(seg, 0, u);
  const v0 = seg.startSpeed, v1 = seg.endSpeed;
  if (v0 === undefined || v1 === undefined || !(seg.length > 0)) return piece;
  const vu = Math.sqrt(Math.max(0, v0 * v0 + ((v1 * v1 - v0 * v0) * piece.length) / seg.length));
  piece.startSpeed = v0;
  piece.endSpeed = vu;
  piece.duration = v0 + vu > 0 ? (2 * piece.length) / (v0 + vu) : 0;
  return piece;
}

/**
 * Joins a plan from the splice point onto the path: the replacement is timed from the unit's speed at its
 * position, continuing the old profile (the piece before the unit is the previous segment), or from rest when the
 * unit was at the start or that profile cannot continue. Sets the speeds on the kept pieces and on `added`, then
 * splits the replacement at its speed phases (speedProfile.ts), as every answer is: the replacement's segments
 * have constant acceleration, and the kept path before it is the old (split) path's, so replace-from indexes
 * refer to the path the client holds.
 */
export function joinSplice(
  old: readonly Segment[],
  splice: CorridorSplice,
  added: readonly Segment[],
  unit: SpeedLimits,
): SplicedPath {
  let replacement = [...splice.kept, ...added];
  const length = replacement.reduce((a, s) => a + s.length, 0);
  const before = splice.fromOffset > 0
    ? timedPiece(old[splice.fromIndex], splice.fromOffset)
    : old[splice.fromIndex - 1];
  let duration = before !== undefined && splice.speed > 0
    ? applySpeedProfile(replacement, unit, { previous: before, speed: splice.speed })
    : applySpeedProfile(replacement, unit);
  const fromRest = Number.isNaN(duration);
  if (fromRest) duration = applySpeedProfile(replacement, unit);
  if (unit.maxSpeed > 0) replacement = splitAtSpeedPhases(replacement, unit);
  if (fromRest) return { replacement, length, duration, path: null };
  const path: Segment[] = old.slice(0, splice.fromIndex);
  if (splice.fromOffset > 0) path.push(before!);
  for (const seg of replacement) path.push(seg);
  return { replacement, length, duration, path };
}
