/**
 * Braking on a timed trajectory: a unit moving at speed v cannot stop at once; at its deceleration b it needs
 * v^2 / (2 b) tiles of its own path. {@link brakeFrom} cuts a trajectory at a time into the braking (the rest of
 * its geometry driven from v down to 0 at b) and the geometry after the stop; {@link envelopeInto} lists points
 * of the stretch a moving unit would cover if it braked now (its braking envelope, which the reservation table
 * reserves beside its footprint). A deceleration of 0 means "stops at once" (no braking, no envelope). Pure.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { poseAlongInto, segmentPiece } from "../geometry/segment.ts";
import { distanceAtTime, progressAt, type Trajectory, trajectoryPose } from "./trajectory.ts";

/** Stopping distances below this (tiles) count as standing. */
const STOP_EPS = 1e-9;

/** Tiles needed to stop from `speed` at `deceleration` (0 when the deceleration is 0: stops at once). */
export function stoppingDistance(speed: number, deceleration: number): number {
  if (!(deceleration > 0) || !(speed > 0)) return 0;
  return (speed * speed) / (2 * deceleration);
}

/** The speed `tau` seconds into a timed segment (linear in time from start to end speed). */
export function speedAtTime(seg: Segment, tau: number): number {
  const D = seg.duration ?? 0, v0 = seg.startSpeed ?? 0, v1 = seg.endSpeed ?? 0;
  if (!(D > 0)) return v1;
  if (tau <= 0) return v0;
  if (tau >= D) return v1;
  return v0 + ((v1 - v0) * tau) / D;
}

/** A wait: a zero-length segment that lasts (the unit stands; not geometry). */
function isWait(seg: Segment): boolean {
  return seg.length === 0 && (seg.duration ?? 0) > 0 && (seg.startSpeed ?? 0) === 0;
}

/** What {@link brakeFrom} finds. */
export interface Braking {
  /** The braking as a trajectory: from the pose at the halt time, speed v down to 0, then standing. */
  traj: Trajectory;
  /** Where it stops. */
  stop: Pose;
  /** Fleet time at which it stops. */
  stopTime: number;
  /** Speed at the halt, tiles/s. */
  speed: number;
  /** Tiles it needs to stop. */
  distance: number;
  /** The geometry after the stop (waits dropped, speeds not profiled: copies to re-profile). */
  rest: Segment[];
}

/**
 * The braking of `traj` from fleet time `time` at `deceleration`: the remaining geometry cut at the stopping
 * distance, each piece with constant deceleration (v^2 = v0^2 - 2 b s, so length = mean speed * duration
 * holds exactly). Null when the unit is at rest then (standing, waiting, before its start, after its end) or
 * the deceleration is 0 (it stops at once). The original profile never brakes harder than b, so the braking
 * speed is at or below the original speed everywhere on the stretch: every cap (top speed, curves) and every
 * planned stop (a cusp, a wait, the end) within reach is kept.
 */
export function brakeFrom(traj: Trajectory, time: number, deceleration: number): Braking | null {
  if (!(deceleration > 0) || traj.segments.length === 0) return null;
  const { index, into } = progressAt(traj, time);
  // At its start time a trajectory may already be moving (a braking from an earlier halt).
  if (index >= traj.segments.length || time < traj.startTime) return null;
  const segs = traj.segments;
  const v0 = speedAtTime(segs[index], into);
  const dist = stoppingDistance(v0, deceleration);
  if (dist <= STOP_EPS) return null;
  const start = trajectoryPose(traj, time);
  const out: Segment[] = [];
  const rest: Segment[] = [];
  let done = 0; // tiles braked so far
  let i = index;
  let u = distanceAtTime(segs[index], into);
  for (; i < segs.length && done < dist - STOP_EPS; i++, u = 0) {
    const seg = segs[i];
    if (isWait(seg) || seg.length === 0) continue;
    const take = Math.min(seg.length - u, dist - done);
    if (take <= STOP_EPS) continue;
    const piece = segmentPiece(seg, u, u + take);
    const vs = Math.sqrt(Math.max(0, v0 * v0 - 2 * deceleration * done));
    done += take;
    // The last piece ends at rest (rounding may leave a hair of speed otherwise).
    const ve = done >= dist - STOP_EPS ? 0 : Math.sqrt(Math.max(0, v0 * v0 - 2 * deceleration * done));
    piece.startSpeed = vs;
    piece.endSpeed = ve;
    piece.duration = (2 * take) / (vs + ve);
    // Joined exactly where the previous piece ends, but with its own heading: at a fluid turn's corner the
    // heading jumps between segments, and the previous end's heading would send this piece the wrong way.
    if (out.length > 0) {
      piece.start = { ...piece.start, x: out[out.length - 1].end.x, y: out[out.length - 1].end.y };
    }
    out.push(piece);
    if (u + take < seg.length - STOP_EPS) {
      rest.push(segmentPiece(seg, u + take, seg.length));
      i++;
      break;
    }
  }
  if (out.length === 0) return null;
  // The geometry ran out first (a stop planned a hair before the stopping distance, by rounding): the last piece
  // ends at rest there.
  const last = out[out.length - 1];
  if (last.endSpeed! > 0) {
    last.endSpeed = 0;
    last.duration = (2 * last.length) / last.startSpeed!;
  }
  for (; i < segs.length; i++) if (!isWait(segs[i])) rest.push({ ...segs[i] });
  const stopTime = time + out.reduce((d, s) => d + (s.duration ?? 0), 0);
  const stop = { ...last.end };
  return {
    traj: { startTime: time, startPose: start, segments: out },
    stop,
    stopTime,
    speed: v0,
    distance: done,
    rest,
  };
}

const scratch: Pose = { x: 0, y: 0, heading: 0 };

/**
 * Appends to `out` (x, y pairs) the points of the braking envelope of a unit `u` tiles into segment `i` of
 * `segs`, `distance` tiles to its stop: every `spacing` tiles ahead along its own geometry, every joint between
 * segments on the way (corners), and last the stop point itself (not its current position). Discs of radius
 * sqrt(r^2 + spacing^2 / 4) around them, with the current position's, cover every position of a disc of radius r
 * on a straight stretch. Returns the number of points appended.
 */
export function envelopeInto(
  segs: readonly Segment[],
  i: number,
  u: number,
  distance: number,
  spacing: number,
  out: number[],
): number {
  if (!(distance > STOP_EPS)) return 0;
  let count = 0;
  let next = Math.min(spacing, distance); // distance ahead of the next point
  let base = 0; // distance ahead at the start of segment j
  let from = u;
  for (let j = i; j < segs.length; j++, from = 0) {
    const seg = segs[j];
    const avail = seg.length - from;
    // A joint: its corner is a centre (between two pieces the nearest point of the path may be the corner).
    if (j > i && base > STOP_EPS && base < next - STOP_EPS) {
      out.push(seg.start.x, seg.start.y);
      count++;
    }
    while (next <= base + avail + STOP_EPS) {
      const at = Math.min(seg.length, from + next - base);
      poseAlongInto(seg.start.x, seg.start.y, seg.start.heading, seg.curvature, seg.direction, at, scratch);
      out.push(scratch.x, scratch.y);
      count++;
      if (next >= distance - STOP_EPS) return count;
      next = Math.min(next + spacing, distance);
    }
    base += avail;
  }
  // The geometry ended before the stopping distance (rounding): the end is the stop.
  if (segs.length > 0 && base > 0) {
    const e = segs[segs.length - 1].end;
    out.push(e.x, e.y);
    count++;
  }
  return count;
}
