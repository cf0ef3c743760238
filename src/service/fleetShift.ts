/**
 * Delay propagation (the idea behind executing a multi-agent plan by its action-dependency graph: keep the
 * plan's order of passage, shift the times). A late unit L is Δ behind its schedule: its new trajectory is its
 * old one from the point it reported on, Δ later. Every unit whose committed trajectory conflicts with that
 * joins the shifted set S: it waits where its trajectory has it at `now` for Δ, then drives the rest as before,
 * Δ later. Units that conflict with a shifted member join in turn, until none does (at worst the whole fleet).
 *
 * Why it cannot cascade: after now + Δ the members of S are a time-translation of a schedule that was
 * conflict-free, and at `now` they stand at poses of that schedule; the closure leaves every other unit clear of
 * them by construction. The one thing translation cannot vouch for is L driving over [now, now + Δ] while a
 * member stands (a unit crossing L's path just behind it in the old plan, now in front of the late unit): then
 * the propagation fails and the caller (fleetRepair.ts) rolls it back and tries its other ways. Units whose
 * future cannot be shifted (standing for good, braking from a halt, moving at `now`: a wait inserted there would
 * stop it dead, harder than it can brake) fail it the same way. Δ is rounded up to
 * whole reservation samples so that the translation is exact at the table's samples (L then stands at its
 * reported pose for less than a sample first). Every trajectory is committed through the scheduler, and the
 * closure's checks are the reservation table's own. Synchronous, no I/O.
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import { type Trajectory, trajectoryPose, waitSegment } from "../motion/trajectory.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";
import { keepPassage, type PassageResult } from "./fleetPassage.ts";
import { cutAt } from "./fleetSlowDown.ts";

/**
 * The fleet time at which `traj` had the unit at `at` (the nearest sample from its start up to `time`, as the
 * session found the reported point; fleetSession.ts #progress).
 */
export function reportedTime(traj: Trajectory, at: Pose, time: number, dt: number): number {
  let best = Infinity, bestT = traj.startTime;
  for (let t = traj.startTime; t <= time + 1e-9; t += dt) {
    const p = trajectoryPose(traj, t);
    const d = Math.hypot(p.x - at.x, p.y - at.y);
    if (d < best) [best, bestT] = [d, t];
  }
  return bestT;
}

/**
 * `traj` with the unit held at its pose at `time` for `delta` seconds: the same until `time`, then a wait, then
 * the rest as before, `delta` later. Null when it has no motion left after `time` (it stands for good).
 */
export function shiftedAt(traj: Trajectory, time: number, delta: number): Trajectory | null {
  if (traj.segments.length === 0) return null;
  if (time <= traj.startTime) return { ...traj, startTime: traj.startTime + delta };
  const { head, tail } = cutAt(traj, time);
  if (tail.length === 0) return null;
  const wait = waitSegment(trajectoryPose(traj, time), delta);
  return { startTime: traj.startTime, startPose: traj.startPose, segments: [...head, wait, ...tail] };
}

/** What a propagation did: the ids it shifted (the late unit first), or why it failed. */
export type ShiftResult = PassageResult;

/**
 * Propagates late unit `u`'s delay: `old` is its trajectory before the report, which had it at `at` at fleet time
 * `from`; now is `time`. Commits the shifted trajectories (the caller rolls them back when it fails).
 */
export function propagateDelay(
  sched: FleetScheduler,
  u: FleetUnitState,
  old: Trajectory,
  at: Pose,
  from: number,
  time: number,
  eager = false,
): ShiftResult {
  const dt = sched.table.dt;
  const delta = Math.ceil((time - from) / dt - 1e-9) * dt;
  const tail = cutAt(old, from).tail;
  if (tail.length === 0 || delta <= 0) return { ok: false, reason: "nothing left to shift" };
  const start = tail[0].start;
  if (Math.hypot(start.x - at.x, start.y - at.y) > 1e-6) {
    return { ok: false, reason: "not on its trajectory" };
  }
  const late: Trajectory = { startTime: from + delta, startPose: at, segments: tail };
  sched.commit(u, late);
  const kept = keepPassage(sched, { u, old, from, late, t0: from + delta, delay: delta }, time, eager);
  if (!kept.ok) return kept;
  u.status = "moving";
  u.message = "";
  return kept;
}
