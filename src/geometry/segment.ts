/**
 * Line and arc segments in closed form: construction, evaluation along a path, joins.
 *
 * The contract (see docs/segments.md): for u in [0, length], with d = direction and k = curvature,
 * heading(u) = h0 + d*k*u and (x, y) integrates d*(cos heading, sin heading). In closed form, with
 * s = d*k*u the signed sweep,
 *
 *   x(u) = x0 + d*u*sinc(s/2)*cos(h0 + s/2),   y(u) = y0 + d*u*sinc(s/2)*sin(h0 + s/2),
 *
 * which equals x0 + (sin(h0 + s) - sin h0)/k, y0 - (cos(h0 + s) - cos h0)/k for k != 0 and the straight line
 * for k = 0. The chord form avoids the cancellation of the difference-of-sines form for small k*u.
 *
 * @module
 */

import { normalizeAngle } from "./angle.ts";
import type { Pose, Segment } from "./types.ts";

/** sin(z)/z, with a series near 0 where the quotient is 0/0. */
export function sinc(z: number): number {
  const z2 = z * z;
  if (z2 < 1e-8) return 1 - z2 / 6 + (z2 * z2) / 120;
  return Math.sin(z) / z;
}

/** Writes the pose at distance u along a segment given by its parts into `out` (no allocation). */
export function poseAlongInto(
  x0: number,
  y0: number,
  h0: number,
  curvature: number,
  direction: number,
  u: number,
  out: Pose,
): Pose {
  const sweep = direction * curvature * u;
  const half = 0.5 * sweep;
  const chord = direction * u * sinc(half);
  const mid = h0 + half;
  out.x = x0 + chord * Math.cos(mid);
  out.y = y0 + chord * Math.sin(mid);
  out.heading = normalizeAngle(h0 + sweep);
  return out;
}

/** The pose at distance u (clamped to [0, length]) along a segment, in closed form. Heading in [-pi, pi). */
export function poseAlong(seg: Segment, u: number): Pose {
  const clamped = u <= 0 ? 0 : u >= seg.length ? seg.length : u;
  const out: Pose = { x: 0, y: 0, heading: 0 };
  return poseAlongInto(
    seg.start.x,
    seg.start.y,
    seg.start.heading,
    seg.curvature,
    seg.direction,
    clamped,
    out,
  );
}

function makeSegment(start: Pose, curvature: number, length: number, direction: 1 | -1): Segment {
  if (!(length >= 0) || !Number.isFinite(length)) {
    throw new RangeError(`segment length must be >= 0, got ${length}`);
  }
  if (direction !== 1 && direction !== -1) {
    throw new RangeError(`direction must be +1 or -1, got ${direction}`);
  }
  const begin: Pose = { x: start.x, y: start.y, heading: start.heading };
  const end = poseAlongInto(begin.x, begin.y, begin.heading, curvature, direction, length, {
    x: 0,
    y: 0,
    heading: 0,
  });
  return { start: begin, end, length, curvature, direction };
}

/**
 * The piece of `seg` from distance `from` to `to` along it (clamped to [0, length]): same curvature and
 * direction, starting at the pose there. Speeds are not carried over.
 */
export function segmentPiece(seg: Segment, from: number, to: number): Segment {
  const a = from <= 0 ? 0 : from >= seg.length ? seg.length : from;
  const b = to <= a ? a : to >= seg.length ? seg.length : to;
  return makeSegment(a === 0 ? seg.start : poseAlong(seg, a), seg.curvature, b - a, seg.direction);
}

/** A straight segment of `length` from `start`, driven forward (+1) or in reverse (-1). */
export function lineSegment(start: Pose, length: number, direction: 1 | -1 = 1): Segment {
  return makeSegment(start, 0, length, direction);
}

/**
 * A circular arc from `start` with signed `curvature` (1/radius, > 0 turns toward +heading when driving
 * forward), travelling `length`, forward (+1) or in reverse (-1). The heading changes by direction*curvature*length.
 */
export function arcSegment(start: Pose, curvature: number, length: number, direction: 1 | -1 = 1): Segment {
  if (!(curvature !== 0) || !Number.isFinite(curvature)) {
    throw new RangeError(`arc curvature must be finite and nonzero, got ${curvature}`);
  }
  return makeSegment(start, curvature, length, direction);
}

/** True if the segment is a circular arc (nonzero curvature). */
export function isArc(seg: Segment): boolean {
  return seg.curvature !== 0;
}

/** The signed heading change over a segment: direction * curvature * length. */
export function segmentSweep(seg: Segment): number {
  return seg.direction * seg.curvature * seg.length;
}

/** The center of an arc's circle (on the left of the heading for curvature > 0, whatever the direction). */
export function arcCenter(seg: Segment): { x: number; y: number } {
  const k = seg.curvature;
  if (k === 0) throw new RangeError("a line has no center");
  const h = seg.start.heading;
  return { x: seg.start.x - Math.sin(h) / k, y: seg.start.y + Math.cos(h) / k };
}

/** Total length of a path (sum of the segment lengths; reverse driving counts positive). */
export function pathLength(segs: readonly Segment[]): number {
  let total = 0;
  for (const seg of segs) total += seg.length;
  return total;
}

/**
 * The pose at distance s along a path (clamped to [0, total length]). An empty path has no pose: throws.
 * At a joint the later segment is used, so the pose at a cusp faces the new direction's heading (same value).
 */
export function poseAtDistance(segs: readonly Segment[], s: number): Pose {
  if (segs.length === 0) throw new RangeError("empty path");
  let remaining = s > 0 ? s : 0;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    if (remaining < seg.length || i === segs.length - 1) return poseAlong(seg, remaining);
    remaining -= seg.length;
  }
  return poseAlong(segs[segs.length - 1], Infinity);
}

/**
 * The pose at time t (seconds) along a path, as in the article's Listing 2.
 *
 * When every segment has a positive `duration`, time is spent per segment: inside a segment the speed changes
 * linearly in time from `startSpeed` to `endSpeed` (constant acceleration), rescaled so the segment's length is
 * covered in exactly its duration; without speeds the segment is driven at constant speed. Otherwise the path is
 * driven at the constant `speed` (tiles/s, default 1): distance = speed * t. Times outside the path clamp.
 */
export function poseAtTime(segs: readonly Segment[], t: number, speed = 1): Pose {
  if (segs.length === 0) throw new RangeError("empty path");
  let timed = true;
  for (const seg of segs) {
    if (!((seg.duration ?? 0) > 0)) {
      timed = false;
      break;
    }
  }
  if (!timed) return poseAtDistance(segs, speed * t);
  let remaining = t > 0 ? t : 0;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    const duration = seg.duration ?? 0;
    if (remaining < duration || i === segs.length - 1) {
      const tau = Math.min(remaining, duration);
      return poseAlong(seg, distanceInSegment(seg, tau, duration));
    }
    remaining -= duration;
  }
  return poseAlong(segs[segs.length - 1], Infinity);
}

function distanceInSegment(seg: Segment, tau: number, duration: number): number {
  if (duration <= 0) return seg.length;
  const v0 = seg.startSpeed ?? 0;
  const v1 = seg.endSpeed ?? 0;
  const nominal = 0.5 * (v0 + v1) * duration;
  if (!(nominal > 0)) return (seg.length * tau) / duration;
  const travelled = v0 * tau + (0.5 * (v1 - v0) * tau * tau) / duration;
  // Rescale so rounding in the stored speeds never leaves a gap or overshoot at the segment's end.
  return (travelled * seg.length) / nominal;
}

/** The gap between a's end and b's start: Euclidean position distance and absolute heading difference. */
export function joinError(a: Segment, b: Segment): { position: number; heading: number } {
  return {
    position: Math.hypot(b.start.x - a.end.x, b.start.y - a.end.y),
    heading: Math.abs(normalizeAngle(b.start.heading - a.end.heading)),
  };
}

/** One piece of a curve word: L (left arc), S (straight) or R (right arc), driven forward or in reverse. */
export interface WordPiece {
  /** The letter: "L", "S" or "R". */
  letter: "L" | "S" | "R";
  /** +1 forward, -1 reverse. */
  direction: 1 | -1;
  /** Distance travelled (world units), >= 0. */
  length: number;
}

/**
 * Appends the segments of a curve word to `out`, starting at `start`, and returns the final pose. L is an arc of
 * curvature +1/radius, R of -1/radius, S a line. Pieces shorter than `minLength` are left out (the next piece starts
 * at the same pose). Each segment starts exactly at the previous segment's end pose.
 */
export function appendWord(
  out: Segment[],
  start: Pose,
  pieces: readonly WordPiece[],
  radius: number,
  minLength = 1e-12 * radius,
): Pose {
  let pose: Pose = start;
  for (const piece of pieces) {
    if (!(piece.length >= minLength)) continue;
    const seg = piece.letter === "S"
      ? lineSegment(pose, piece.length, piece.direction)
      : arcSegment(pose, (piece.letter === "L" ? 1 : -1) / radius, piece.length, piece.direction);
    out.push(seg);
    pose = seg.end;
  }
  return pose;
}

/**
 * Appends `segs` re-emitted one after the other from `from` (same curvature, length and direction; each starts
 * exactly at the previous one's end pose, so joins are exact) and returns the final pose.
 */
export function appendChained(out: Segment[], from: Pose, segs: readonly Segment[]): Pose {
  let pose = from;
  for (const s of segs) {
    const next = s.curvature === 0
      ? lineSegment(pose, s.length, s.direction)
      : arcSegment(pose, s.curvature, s.length, s.direction);
    out.push(next);
    pose = next.end;
  }
  return pose;
}

/** A curve from a solver: the word (e.g. "LSR", "L+S+R-", "LS"), its total length and its segments. */
export interface CurvePath {
  /** The word: one letter (L, S, R) per piece, with a sign per piece for Reeds-Shepp words. */
  word: string;
  /** Total length in world units (the sum of the pieces, including any left-out zero-length ones). */
  length: number;
  /** The segments from start to goal; pieces shorter than 1e-12 * radius are left out. */
  segments: Segment[];
}

/** Throws a RangeError unless the turning radius r is finite and > 0 (the curve solvers' shared check). */
export function checkTurningRadius(r: number): void {
  if (!(r > 0) || !Number.isFinite(r)) {
    throw new RangeError(`turning radius must be finite and > 0, got ${r}`);
  }
}

/**
 * A solver's shortest word as a {@link CurvePath}: its pieces laid out from `start` (heading wrapped to
 * [-pi, pi)) with turning radius r, pieces shorter than 1e-12 * r left out.
 */
export function wordPath(
  word: string,
  length: number,
  start: Pose,
  pieces: readonly WordPiece[],
  r: number,
): CurvePath {
  const segments: Segment[] = [];
  appendWord(segments, { x: start.x, y: start.y, heading: normalizeAngle(start.heading) }, pieces, r);
  return { word, length, segments };
}
