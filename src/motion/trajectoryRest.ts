/**
 * What is left of a timed trajectory: the geometry not yet driven at a time, re-profiled from rest, and the wire
 * form of a trajectory from a time (a wait while it stands). Used by the fleet's scheduler, repairs and session.
 * Pure.
 *
 * @module
 */
import type { Segment } from "../geometry/types.ts";
import { segmentPiece } from "../geometry/segment.ts";
import type { UnitSpec } from "../units/unit.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "./speedProfile.ts";
import { distanceAtTime, progressAt, type Trajectory, waitSegment } from "./trajectory.ts";

/** Segments profiled from rest to rest for `unit` and split at its speed phases. */
export function profiled(segs: Segment[], unit: UnitSpec): Segment[] {
  applySpeedProfile(segs, unit);
  return splitAtSpeedPhases(segs, unit);
}

/**
 * The geometry of `traj` not yet driven at `time` (waits dropped), re-profiled from rest for `unit` and split
 * at its speed phases.
 */
export function remainingPath(traj: Trajectory, time: number, unit: UnitSpec): Segment[] {
  const { index, into } = progressAt(traj, time);
  const rest: Segment[] = [];
  for (let i = index; i < traj.segments.length; i++) {
    const seg = traj.segments[i];
    if (seg.length === 0 && (seg.duration ?? 0) > 0 && (seg.startSpeed ?? 0) === 0) continue; // a wait
    const from = i === index ? distanceAtTime(seg, into) : 0;
    if (from >= seg.length - 1e-12 && seg.length > 0) continue;
    rest.push(i === index && from > 0 ? segmentPiece(seg, from, seg.length) : { ...seg });
  }
  if (rest.length === 0) return rest;
  applySpeedProfile(rest, unit);
  return splitAtSpeedPhases(rest, unit);
}

/** The wire form of a committed trajectory: from `time`, a wait while it stands, then its segments. */
export function trajectoryFrom(traj: Trajectory, time: number): { startTime: number; segments: Segment[] } {
  const wait = traj.startTime - time;
  if (traj.segments.length === 0) return { startTime: time, segments: [] };
  return {
    startTime: Math.min(time, traj.startTime),
    segments: wait > 0 ? [waitSegment(traj.startPose, wait), ...traj.segments] : traj.segments,
  };
}
