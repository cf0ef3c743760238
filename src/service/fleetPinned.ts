/**
 * Units halted too close to set out (issue 12: circle 10 after one delay left two units waiting for good in the
 * open field). The reservation table lets a unit stand as close as the two radii to another standing unit, but a
 * moving sample needs the radii plus the motion between samples ((v_a + v_b) * dt / 2: the unit may move that far
 * before the next sample, motion/reservations.ts). Two units stopped side by side in that band (a unit stopped at
 * once beside a late one) are legal as they stand, yet the table refuses either one's first step, whichever way it
 * goes: neither ever sets out, and each waits for the other for good (a standoff, fleetDeadlock.ts).
 *
 * The standoff breaker then times the unit that gives way with those close standing neighbours lifted from the
 * table, and checks its trajectory against each of them exactly instead: they stand still (for good, until they
 * are rescheduled against the table), so it is enough that no point of its path comes within the two radii of
 * where one stands. Every other unit is still checked by the table. Synchronous, no I/O.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { poseAlong } from "../geometry/segment.ts";
import { type Trajectory, trajectoryEnd, trajectoryEndPose } from "../motion/trajectory.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";

/** Arcs are checked every ARC_STEP tiles (a point of the arc lies within half a step of a sample). */
const ARC_STEP = 0.02;

/**
 * The units standing for good by `time` (no motion left) so close to `pose` that the table would refuse `u`'s
 * first step from there: within both radii plus both units' motion between two samples.
 */
export function pinnedBy(
  sched: FleetScheduler,
  u: FleetUnitState,
  pose: Pose,
  time: number,
): FleetUnitState[] {
  const out: FleetUnitState[] = [];
  const half = sched.table.dt / 2;
  for (const o of sched.units.values()) {
    if (o === u || trajectoryEnd(o.traj) > time + 1e-9) continue;
    const p = trajectoryEndPose(o.traj);
    const gap = u.unit.boundingRadius + o.unit.boundingRadius + (u.unit.maxSpeed + o.unit.maxSpeed) * half;
    if (Math.hypot(p.x - pose.x, p.y - pose.y) < gap) out.push(o);
  }
  return out;
}

/** Distance from (x, y) to the segment's ground (exact for lines, within ARC_STEP / 2 below for arcs). */
function distanceTo(seg: Segment, x: number, y: number): number {
  if (seg.length <= 0) return Math.hypot(seg.start.x - x, seg.start.y - y);
  if (seg.curvature === 0) {
    const ax = seg.start.x, ay = seg.start.y, dx = seg.end.x - ax, dy = seg.end.y - ay;
    const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy || 1)));
    return Math.hypot(ax + t * dx - x, ay + t * dy - y);
  }
  let best = Infinity;
  for (let d = 0; d < seg.length + ARC_STEP; d += ARC_STEP) {
    const p = poseAlong(seg, Math.min(d, seg.length));
    best = Math.min(best, Math.hypot(p.x - x, p.y - y));
  }
  return best - ARC_STEP / 2;
}

/** Whether a unit of radius `radius` driving `traj` (and standing at its ends) never touches `o` where it stands. */
export function clearOfStanding(traj: Trajectory, radius: number, o: FleetUnitState): boolean {
  const p = trajectoryEndPose(o.traj), need = radius + o.unit.boundingRadius;
  if (Math.hypot(traj.startPose.x - p.x, traj.startPose.y - p.y) < need) return false;
  return traj.segments.every((seg) => distanceTo(seg, p.x, p.y) >= need);
}

/**
 * Runs `attempt` (which times and commits `u`, standing at `pose` at `time`, and says whether it did) with the
 * units pinning `u` there (see {@link pinnedBy}) lifted from the table, then puts them back. Returns true when the
 * attempt committed a trajectory that keeps clear of each of them (checked exactly, see the module doc); false
 * otherwise, and then the caller puts `u` back as it was.
 */
export function withPinnedLifted(
  sched: FleetScheduler,
  u: FleetUnitState,
  pose: Pose,
  time: number,
  attempt: () => boolean,
): boolean {
  const lifted = pinnedBy(sched, u, pose, time);
  for (const o of lifted) sched.table.remove(o.id);
  try {
    if (!attempt()) return false;
    return lifted.every((o) => clearOfStanding(u.traj, u.unit.boundingRadius, o));
  } finally {
    for (const o of lifted) sched.commit(o, o.traj);
  }
}
