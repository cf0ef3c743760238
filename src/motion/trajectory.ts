/**
 * Timed trajectories on a fleet's clock: a start time and timed segments (speed linear in time within each,
 * so length = (start_speed + end_speed) / 2 * duration), the unit standing at its first pose before the start
 * and at its last pose after the end. Pure, closed-form poses at any time.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { poseAlongInto } from "../geometry/segment.ts";

/** A unit's trajectory from `startTime` on. */
export interface Trajectory {
  /** Fleet seconds at which the first segment begins. */
  startTime: number;
  /** Where the unit stands before `startTime` (and, with no segments, forever). */
  startPose: Pose;
  /** Timed segments in order. */
  segments: Segment[];
}

/** Seconds the trajectory's segments take. */
export function trajectoryDuration(t: Trajectory): number {
  let d = 0;
  for (const s of t.segments) d += s.duration ?? 0;
  return d;
}

/** Fleet time at which the unit reaches its last pose. */
export function trajectoryEnd(t: Trajectory): number {
  return t.startTime + trajectoryDuration(t);
}

/** The last pose (where the unit stands forever after the end). */
export function trajectoryEndPose(t: Trajectory): Pose {
  return t.segments.length > 0 ? t.segments[t.segments.length - 1].end : t.startPose;
}

/** A wait: a zero-length segment of `duration` seconds at `pose`. */
export function waitSegment(pose: Pose, duration: number): Segment {
  const p = { x: pose.x, y: pose.y, heading: pose.heading };
  return {
    start: p,
    end: { ...p },
    length: 0,
    curvature: 0,
    direction: 1,
    startSpeed: 0,
    endSpeed: 0,
    duration,
  };
}

/**
 * Distance driven `tau` seconds into a segment: the speed goes linearly from start to end speed over the
 * duration, so s = v0 tau + (v1 - v0) tau^2 / (2 D), clamped to [0, length].
 */
export function distanceAtTime(seg: Segment, tau: number): number {
  const D = seg.duration ?? 0;
  if (D <= 0 || tau >= D) return seg.length;
  if (tau <= 0) return 0;
  const v0 = seg.startSpeed ?? 0, v1 = seg.endSpeed ?? 0;
  const s = v0 * tau + ((v1 - v0) * tau * tau) / (2 * D);
  return s < 0 ? 0 : s > seg.length ? seg.length : s;
}

/** Writes the pose at fleet time `time` into `out` (the start pose before the start, the end pose after). */
export function trajectoryPoseInto(t: Trajectory, time: number, out: Pose): Pose {
  let tau = time - t.startTime;
  if (tau <= 0 || t.segments.length === 0) {
    out.x = t.startPose.x;
    out.y = t.startPose.y;
    out.heading = t.startPose.heading;
    return out;
  }
  for (const seg of t.segments) {
    const D = seg.duration ?? 0;
    if (tau < D) {
      const u = distanceAtTime(seg, tau);
      return poseAlongInto(seg.start.x, seg.start.y, seg.start.heading, seg.curvature, seg.direction, u, out);
    }
    tau -= D;
  }
  const end = trajectoryEndPose(t);
  out.x = end.x;
  out.y = end.y;
  out.heading = end.heading;
  return out;
}

/** The pose at fleet time `time`. */
export function trajectoryPose(t: Trajectory, time: number): Pose {
  return trajectoryPoseInto(t, time, { x: 0, y: 0, heading: 0 });
}

/** A trajectory that stands at `pose` forever. */
export function standing(pose: Pose, time: number): Trajectory {
  return { startTime: time, startPose: { x: pose.x, y: pose.y, heading: pose.heading }, segments: [] };
}

/**
 * The remainder of a timed path from fleet time `time` on, as a trajectory starting at rest there: the pieces
 * of `t` after `time` are kept unchanged if `time` falls before the start or at a segment joint; otherwise the
 * trajectory restarts from the pose at `time` along the remaining geometry (see fleet session for how speeds
 * are re-profiled). Returned: the index of the first segment not yet begun and the seconds into the current one.
 */
export function progressAt(t: Trajectory, time: number): { index: number; into: number } {
  let tau = time - t.startTime;
  if (tau <= 0) return { index: 0, into: 0 };
  for (let i = 0; i < t.segments.length; i++) {
    const D = t.segments[i].duration ?? 0;
    if (tau < D) return { index: i, into: tau };
    tau -= D;
  }
  return { index: t.segments.length, into: 0 };
}
